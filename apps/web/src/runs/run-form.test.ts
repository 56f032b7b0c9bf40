import { CreateRun, runDefaults, type ServerLimits } from '@codebook/shared'
import { describe, expect, it } from 'vitest'
import { clusterDatasetHref } from '../datasets/upload-advice.ts'
import {
  defaultRunForm,
  placedRunHref,
  type RunFormContext,
  runFormFromRun,
  runFormFromSearch,
  validateRunForm,
} from './run-form.ts'

const form = { ...defaultRunForm, datasetId: 'ds1' }
const limits: ServerLimits = {
  maxWorkersPerRun: 16,
  maxQueuedRuns: 100,
  maxUploadBytes: 1e9,
  kernels: ['auto', 'reference', 'onnx', 'int8'],
}
const ctx = (over: Partial<RunFormContext> = {}): RunFormContext => ({
  datasetN: 1000,
  limits,
  topology: null,
  ...over,
})

describe('validateRunForm', () => {
  it('turns the shared defaults into the request body', () => {
    expect(validateRunForm(form, ctx())).toEqual({
      ok: true,
      input: {
        datasetId: 'ds1',
        k: 64,
        maxIterations: 20,
        workers: 2,
        slots: 1,
        seed: 1,
        tol: 0.0001,
        broadcast: 'chain',
        chainOrder: 'topology',
        aggregation: 'three-stage',
        reduction: 'regroup',
        algorithm: 'lloyd',
        assignment: 'exact',
        partials: 'exact',
        encoding: 'float32',
        init: 'kmeans++',
        kernel: runDefaults.kernel,
      },
    })
  })

  it('sends the centroid encoding and, for an approximate run, the HNSW settings given, each checked at its field', () => {
    const f16 = validateRunForm({ ...form, encoding: 'float16', hnswExpansion: '64' }, ctx())
    expect(f16.ok && f16.input.encoding).toBe('float16')
    // HNSW settings mean nothing to an exact run.
    expect(f16.ok && 'hnsw' in f16.input).toBe(false)
    const approximate = validateRunForm(
      {
        ...form,
        assignment: 'approximate',
        hnswExpansion: '64',
        hnswScalar: 'f16',
        hnswWalkMinRecall: '0.9',
      },
      ctx(),
    )
    expect(approximate.ok && CreateRun.parse(approximate.input).hnsw).toEqual({
      expansion: 64,
      scalar: 'f16',
      walkMinRecall: 0.9,
    })
    const bad = validateRunForm(
      {
        ...form,
        assignment: 'approximate',
        hnswConnectivity: '1',
        hnswWalkMinRecall: '2',
        hnswExpansion: 'x',
      },
      ctx(),
    )
    expect(bad.ok).toBe(false)
    expect(!bad.ok && Object.keys(bad.errors).sort()).toEqual([
      'hnswConnectivity',
      'hnswExpansion',
      'hnswWalkMinRecall',
    ])
  })

  it('fills the form from a stored run ("Run again") so that it sends the same params', () => {
    const params = CreateRun.parse({
      datasetId: 'ds1',
      k: 12,
      maxIterations: 7,
      workers: 3,
      encoding: 'uint8',
      assignment: 'approximate',
      approximateSearch: 'walk',
      hnsw: { connectivity: 8 },
      seed: 9,
      tol: 0,
      kernel: 'reference',
    })
    const values = runFormFromRun({ params: { ...params, aggregation: 'three-stage' } })
    const again = validateRunForm(values, ctx())
    expect(again.ok && CreateRun.parse(again.input)).toEqual(CreateRun.parse(params))
  })

  it('sends the approximate search only with an approximate assignment', () => {
    const walk = { ...form, approximateSearch: 'walk' as const }
    const exact = validateRunForm(walk, ctx())
    expect(exact.ok && 'approximateSearch' in exact.input).toBe(false)
    const approximate = validateRunForm({ ...walk, assignment: 'approximate' }, ctx())
    expect(approximate.ok && CreateRun.parse(approximate.input).approximateSearch).toBe('walk')
  })

  it('rejects k above n, k below 1 and non-integers', () => {
    expect(validateRunForm({ ...form, k: '65' }, ctx({ datasetN: 64 }))).toEqual({
      ok: false,
      errors: { k: 'k must be at most n = 64' },
    })
    expect(validateRunForm({ ...form, k: '64' }, ctx({ datasetN: 64 })).ok).toBe(true)
    expect(validateRunForm({ ...form, k: '0' }, ctx({ datasetN: 64 }))).toEqual({
      ok: false,
      errors: { k: 'k must be at least 1' },
    })
    const bad = validateRunForm(
      { ...form, k: '2.5', maxIterations: '1e3', workers: '' },
      ctx({ datasetN: null }),
    )
    expect(bad.ok ? {} : Object.keys(bad.errors).sort()).toEqual(['k', 'maxIterations', 'workers'])
  })

  it('requires a dataset and a non-negative tol', () => {
    const bad = validateRunForm({ ...form, datasetId: '', tol: '-1' }, ctx())
    expect(bad.ok ? {} : Object.keys(bad.errors).sort()).toEqual(['datasetId', 'tol'])
    expect(validateRunForm({ ...form, tol: '0' }, ctx()).ok).toBe(true)
  })

  it("holds workers to this server's CODEBOOK_MAX_WORKERS_PER_RUN", () => {
    const small = ctx({ limits: { ...limits, maxWorkersPerRun: 4 } })
    expect(validateRunForm({ ...form, workers: '5' }, small)).toEqual({
      ok: false,
      errors: { workers: "Workers must be at most 4 (this server's limit per run)" },
    })
    expect(validateRunForm({ ...form, workers: '4' }, small).ok).toBe(true)
    // Limits not known yet: the schema's bound (256) applies.
    expect(validateRunForm({ ...form, workers: '200' }, ctx({ limits: null })).ok).toBe(true)
  })

  it('accepts only the kernels the server knows (blas used to pass and fail at worker start)', () => {
    expect(validateRunForm({ ...form, kernel: 'blas' }, ctx())).toEqual({
      ok: false,
      errors: { kernel: 'Kernel must be one of auto, reference, onnx, int8' },
    })
    expect(validateRunForm({ ...form, kernel: 'reference' }, ctx()).ok).toBe(true)
  })

  it("checks the body against the server's CreateRun schema, naming the field", () => {
    // Limits not known yet: the kernel's spelling is the schema's rule.
    expect(validateRunForm({ ...form, kernel: 'Bad Kernel' }, ctx({ limits: null }))).toEqual({
      ok: false,
      errors: { kernel: 'Kernel: lowercase letters, digits, dashes' },
    })
    // A server listing a kernel the schema refuses would answer 400: the form says so first.
    const odd = ctx({ limits: { ...limits, kernels: ['BLAS'] } })
    const refused = validateRunForm({ ...form, kernel: 'BLAS' }, odd)
    expect(refused.ok ? [] : Object.keys(refused.errors)).toEqual(['kernel'])
    // Whatever the form accepts, the schema accepts.
    for (const over of [{}, { workers: '256' }, { maxIterations: '100000' }, { slots: '64' }, { tol: '0' }]) {
      const result = validateRunForm({ ...form, ...over }, ctx({ limits: null }))
      expect(result.ok && CreateRun.safeParse(result.input).success, JSON.stringify(over)).toBe(true)
    }
  })

  it('sends the chosen topology and version, and holds workers to its node count', () => {
    const topo = { ...form, topologyId: 't1', topologyVersion: '2' }
    const withTopology = ctx({ topology: { latestVersion: 3, nodes: 4 } })
    const ok = validateRunForm(topo, withTopology)
    expect(ok.ok && ok.input).toMatchObject({ topologyId: 't1', topologyVersion: 2 })
    // Latest (no version): the latest's node count applies.
    expect(validateRunForm({ ...topo, topologyVersion: '', workers: '5' }, withTopology)).toEqual({
      ok: false,
      errors: { workers: 'The topology has 4 nodes: at most 4 workers' },
    })
    expect(validateRunForm({ ...topo, topologyVersion: '4' }, withTopology)).toEqual({
      ok: false,
      errors: { topologyVersion: 'Version must be at most 3' },
    })
    const latest = validateRunForm({ ...topo, topologyVersion: '' }, withTopology)
    expect(latest.ok && latest.input.topologyVersion).toBeUndefined()
  })
})

describe('validateRunForm: launchers', () => {
  it('sends the slurm fields given, checks each at its field, and lets join and slurm outgrow the topology', () => {
    const slurm = {
      ...form,
      launcher: 'slurm' as const,
      slurmPartition: 'gpu',
      slurmTimeLimit: '2:00:00',
      slurmNodes: '2',
    }
    const ok = validateRunForm(slurm, ctx())
    expect(ok.ok && ok.input).toMatchObject({
      launcher: 'slurm',
      slurm: { partition: 'gpu', nodes: 2, timeLimit: '2:00:00' },
    })
    expect(CreateRun.safeParse(ok.ok && ok.input).success).toBe(true)
    expect(
      validateRunForm(
        { ...slurm, slurmTimeLimit: '2h', slurmTasksPerNode: '0', slurmPartition: 'a b' },
        ctx(),
      ),
    ).toEqual({
      ok: false,
      errors: {
        slurmTimeLimit: 'Time limit as sbatch takes it: 30, 2:00:00 or 1-12',
        slurmTasksPerNode: 'Tasks per node must be at least 1',
        slurmPartition: 'Partition: letters, digits, . _ -',
      },
    })
    // Slurm fields belong to slurm runs only.
    const join = validateRunForm({ ...slurm, launcher: 'join' }, ctx())
    expect(join.ok && join.input.slurm).toBeUndefined()
    // Workers on real hosts take their host's rack: the topology's node count does not bound them.
    const topology = { topology: { latestVersion: 1, nodes: 2 } }
    const big = { ...form, workers: '5', topologyId: 't1' }
    expect(validateRunForm({ ...big, launcher: 'join' }, ctx(topology)).ok).toBe(true)
    expect(validateRunForm(big, ctx(topology)).ok).toBe(false)
  })
})

describe('runFormFromSearch', () => {
  it('preselects the topology and version of "Run on this topology"', () => {
    expect(runFormFromSearch('?topology=abc&version=3')).toMatchObject({
      topologyId: 'abc',
      topologyVersion: '3',
    })
    expect(runFormFromSearch('?version=3')).toMatchObject({ topologyId: '', topologyVersion: '' })
    expect(runFormFromSearch('')).toEqual(defaultRunForm)
  })

  it('preselects the dataset of "Cluster this dataset"', () => {
    const href = clusterDatasetHref('ds-7')
    expect(runFormFromSearch(href.slice(href.indexOf('?')))).toMatchObject({
      datasetId: 'ds-7',
      topologyId: '',
    })
  })

  it('attaches the mapping of "Use for a run": workers = its nodes, sent as mapping with the planner', () => {
    const href = placedRunHref('t1', 2, 'geo', ['node-2', 'node 0', 'node-3'])
    const values = runFormFromSearch(href.slice(href.indexOf('?')))
    expect(values).toMatchObject({
      topologyId: 't1',
      topologyVersion: '2',
      mapping: ['node-2', 'node 0', 'node-3'],
      mappingPlanner: 'geo',
      workers: '3',
    })
    const topology = { topology: { latestVersion: 2, nodes: 4 } }
    const sent = validateRunForm({ ...values, datasetId: 'ds1' }, ctx(topology))
    expect(sent.ok && sent.input).toMatchObject({
      mapping: values.mapping,
      mappingPlanner: 'geo',
      workers: 3,
    })
    expect(sent.ok && CreateRun.parse(sent.input).mapping).toEqual(values.mapping)
    // One worker per mapped node: another worker count is refused at its field, as are real hosts.
    const more = validateRunForm({ ...values, datasetId: 'ds1', workers: '4' }, ctx(topology))
    expect(more.ok ? null : more.errors.workers).toContain('the mapping has 3 workers')
    const joined = validateRunForm({ ...values, datasetId: 'ds1', launcher: 'join' }, ctx(topology))
    expect(joined.ok ? null : joined.errors.launcher).toBeDefined()
    // Without a topology the nodes mean nothing and are dropped.
    expect(runFormFromSearch('?node=a&planner=geo')).toEqual(defaultRunForm)
  })

  it("carries a K-means plan's aggregation into the run, and ignores an unknown one", () => {
    const href = placedRunHref('t1', 2, 'geo-refined', ['a', 'b'], 'ring')
    const values = runFormFromSearch(href.slice(href.indexOf('?')))
    expect(defaultRunForm.aggregation).not.toBe('ring')
    expect(values.aggregation).toBe('ring')
    const sent = validateRunForm(
      { ...values, datasetId: 'ds1' },
      ctx({ topology: { latestVersion: 2, nodes: 2 } }),
    )
    expect(sent.ok && sent.input.aggregation).toBe('ring')
    const odd = runFormFromSearch(
      `${href.slice(href.indexOf('?'))}`.replace('aggregation=ring', 'aggregation=star'),
    )
    expect(odd.aggregation).toBe(defaultRunForm.aggregation)
    // Without a mapping the aggregation is not preset either (it belongs to a placed plan).
    expect(runFormFromSearch('?topology=t1&version=2&aggregation=ring').aggregation).toBe(
      defaultRunForm.aggregation,
    )
  })
})
