import {
  CreateRun,
  type CreateRunInput,
  DEFAULT_INIT_METHOD,
  type hnswScalarTypes,
  initMethods,
  type Run,
  RunHnsw,
  runAggregations,
  runAlgorithms,
  runApproximateSearches,
  runAssignments,
  runBounds,
  runBroadcasts,
  runChainOrders,
  runDefaults,
  runEncodings,
  type runLaunchers,
  runPartials,
  runReductions,
  type ServerLimits,
  SlurmLaunch,
} from '@codebook/shared'
import { countOf } from '../lib/format.ts'

/** The new-run form as typed: numbers stay strings until validated. */
export interface RunFormValues {
  datasetId: string
  k: string
  maxIterations: string
  workers: string
  slots: string
  tol: string
  seed: string
  broadcast: (typeof runBroadcasts)[number]
  chainOrder: (typeof runChainOrders)[number]
  aggregation: (typeof runAggregations)[number]
  reduction: (typeof runReductions)[number]
  algorithm: (typeof runAlgorithms)[number]
  assignment: (typeof runAssignments)[number]
  approximateSearch: (typeof runApproximateSearches)[number]
  partials: (typeof runPartials)[number]
  /** Centroid broadcast encoding (the CLI's `--encoding`). */
  encoding: (typeof runEncodings)[number]
  /** HNSW settings of an approximate run ('' = the runtime's default), the CLI's `--hnsw-*`, `--walk-*`, `--recall-sample`. */
  hnswConnectivity: string
  hnswExpansion: string
  hnswScalar: '' | (typeof hnswScalarTypes)[number]
  hnswWalkDegree: string
  hnswWalkMinRecall: string
  hnswRecallSample: string
  init: (typeof initMethods)[number]
  kernel: string
  /** Saved topology the workers run as; '' = none (every worker on one rack). */
  topologyId: string
  /** Its version; '' = the latest at launch. */
  topologyVersion: string
  /** Node name per worker from a placement plan ("Use for a run"); [] = the topology's nodes in order. */
  mapping: string[]
  /** The planner that produced `mapping`. */
  mappingPlanner: string
  /** Where the workers run: local children of the server, a Slurm job, or workers that join. */
  launcher: (typeof runLaunchers)[number]
  /** `slurm`: sbatch's partition, nodes, tasks per node and time limit; '' = Slurm's default. */
  slurmPartition: string
  slurmNodes: string
  slurmTasksPerNode: string
  slurmTimeLimit: string
}

/** The fixed choices of the form's selects, from the shared schema's enums. */
export const runFormChoices = {
  broadcast: runBroadcasts,
  chainOrder: runChainOrders,
  aggregation: runAggregations,
  reduction: runReductions,
  algorithm: runAlgorithms,
  assignment: runAssignments,
  approximateSearch: runApproximateSearches,
  partials: runPartials,
  encoding: runEncodings,
  init: initMethods,
} as const

/** Defaults of the form: the shared `runDefaults` (the CLI's too); the dataset is chosen once the list arrives. */
export const defaultRunForm: RunFormValues = {
  datasetId: '',
  k: String(runDefaults.k),
  maxIterations: String(runDefaults.maxIterations),
  workers: String(runDefaults.workers),
  slots: String(runDefaults.slots),
  tol: String(runDefaults.tol),
  seed: String(runDefaults.seed),
  broadcast: runDefaults.broadcast,
  chainOrder: runDefaults.chainOrder,
  aggregation: runDefaults.aggregation,
  reduction: runDefaults.reduction,
  algorithm: runDefaults.algorithm,
  assignment: runDefaults.assignment,
  approximateSearch: runDefaults.approximateSearch,
  partials: runDefaults.partials,
  encoding: runDefaults.encoding,
  hnswConnectivity: '',
  hnswExpansion: '',
  hnswScalar: '',
  hnswWalkDegree: '',
  hnswWalkMinRecall: '',
  hnswRecallSample: '',
  init: DEFAULT_INIT_METHOD,
  kernel: runDefaults.kernel,
  topologyId: '',
  topologyVersion: '',
  mapping: [],
  mappingPlanner: '',
  launcher: 'local',
  slurmPartition: '',
  slurmNodes: '',
  slurmTasksPerNode: '',
  slurmTimeLimit: '',
}

/** What the checks need to know beyond the form: the chosen dataset's n, the server's limits, the topology. */
export interface RunFormContext {
  /** n of the chosen dataset; null: unknown. */
  datasetN: number | null
  /** `GET /api/limits`; null until it arrived (the shared schema's bounds apply meanwhile). */
  limits: ServerLimits | null
  /** The chosen topology's latest version and its node count; null: none chosen or unknown. */
  topology: { latestVersion: number; nodes: number } | null
}

/** Field name → message, for the fields that are wrong. */
export type RunFormErrors = Partial<Record<keyof RunFormValues, string>>

function integerIn(text: string, min: number, max: number, name: string): [number | null, string | null] {
  const t = text.trim()
  if (!/^\d+$/.test(t)) return [null, `${name} must be a whole number`]
  const v = Number(t)
  if (v < min) return [null, `${name} must be at least ${min}`]
  if (v > max) return [null, `${name} must be at most ${max.toLocaleString('en-US')}`]
  return [v, null]
}

/** The workers check: the schema's bound, this server's `CODEBOOK_MAX_WORKERS_PER_RUN`, the topology's nodes. */
function checkWorkers(
  text: string,
  ctx: RunFormContext,
  version: number | null,
  launcher: RunFormValues['launcher'],
): [number | null, string | null] {
  const serverMax = ctx.limits?.maxWorkersPerRun ?? runBounds.workers
  const [workers, err] = integerIn(text, 1, Math.min(serverMax, runBounds.workers), 'Workers')
  if (err !== null)
    return [null, ctx.limits && /at most/.test(err) ? `${err} (this server's limit per run)` : err]
  // Only the latest version's node count is known here; the server checks older versions.
  // Workers on real hosts (join, slurm) take their host's rack, whatever the topology's size.
  const t = ctx.topology
  if (
    t &&
    launcher === 'local' &&
    (version === null || version === t.latestVersion) &&
    (workers as number) > t.nodes
  )
    return [null, `The topology has ${countOf(t.nodes, 'node')}: at most ${countOf(t.nodes, 'worker')}`]
  return [workers, null]
}

/** Readable words for the schema's refusals the form does not check itself. */
const schemaMessages: Record<string, string> = {
  kernel: 'Kernel: lowercase letters, digits, dashes',
  slurmPartition: 'Partition: letters, digits, . _ -',
  slurmTimeLimit: 'Time limit as sbatch takes it: 30, 2:00:00 or 1-12',
}

/** The form field of a schema issue: `slurm.timeLimit` is the field `slurmTimeLimit`. */
function issueField(path: readonly PropertyKey[]): string | undefined {
  const [head, sub] = path
  if (head === 'slurm' && typeof sub === 'string') return `slurm${sub[0]!.toUpperCase()}${sub.slice(1)}`
  return typeof head === 'string' ? head : undefined
}

/** The `slurm` part of the request: the fields given, each checked; nothing for other launchers. */
function slurmInput(values: RunFormValues, errors: RunFormErrors): CreateRunInput['slurm'] {
  if (values.launcher !== 'slurm') return undefined
  const slurm: NonNullable<CreateRunInput['slurm']> = {}
  for (const [field, key, label] of [
    ['slurmNodes', 'nodes', 'Nodes'],
    ['slurmTasksPerNode', 'tasksPerNode', 'Tasks per node'],
  ] as const) {
    if (values[field].trim() === '') continue
    const [v, err] = integerIn(values[field], 1, 10_000, label)
    if (err) errors[field] = err
    else slurm[key] = v as number
  }
  // Partition and time limit are checked by the shared schema's own rules.
  for (const [field, key] of [
    ['slurmPartition', 'partition'],
    ['slurmTimeLimit', 'timeLimit'],
  ] as const) {
    const text = values[field].trim()
    if (text === '') continue
    if (SlurmLaunch.shape[key].safeParse(text).success) slurm[key] = text
    else errors[field] = schemaMessages[field]
  }
  return slurm
}

/** The HNSW fields of the form, their key in `RunHnsw` and whether they are whole numbers. */
export const hnswFields = [
  ['hnswConnectivity', 'connectivity', 'Connectivity (--hnsw-connectivity)'],
  ['hnswExpansion', 'expansion', 'Expansion (--hnsw-expansion)'],
  ['hnswWalkDegree', 'walkDegree', 'Walk degree (--walk-degree)'],
  ['hnswWalkMinRecall', 'walkMinRecall', 'Walk min recall (--walk-min-recall)'],
  ['hnswRecallSample', 'recallSample', 'Recall sample (--recall-sample)'],
] as const

/** The `hnsw` part of an approximate run: the fields given, each checked by the shared `RunHnsw`. */
function hnswInput(values: RunFormValues, errors: RunFormErrors): CreateRunInput['hnsw'] {
  if (values.assignment !== 'approximate') return undefined
  const hnsw: Record<string, unknown> = {}
  for (const [field, key, label] of hnswFields) {
    const text = values[field].trim()
    if (text === '') continue
    const v = Number(text)
    const checked = RunHnsw.shape[key].safeParse(v)
    if (!Number.isFinite(v) || !checked.success)
      errors[field] =
        `${label.split(' (')[0]}: ${checked.success ? 'a number' : (checked.error.issues[0]?.message ?? 'out of range')}`
    else hnsw[key] = v
  }
  if (values.hnswScalar !== '') hnsw.scalar = values.hnswScalar
  return Object.keys(hnsw).length === 0 ? undefined : (hnsw as CreateRunInput['hnsw'])
}

/**
 * Checks the form against every limit the server enforces (the shared `CreateRun` schema, the
 * dataset's n, this server's limits and kernels, the topology's size) and returns either the
 * request body or a message per wrong field.
 */
export function validateRunForm(
  values: RunFormValues,
  ctx: RunFormContext,
): { ok: true; input: CreateRunInput } | { ok: false; errors: RunFormErrors } {
  const errors: RunFormErrors = {}
  if (values.datasetId === '') errors.datasetId = 'Choose a ready dataset'
  const { datasetN } = ctx
  const [k, kErr] = integerIn(values.k, 1, datasetN ?? Number.MAX_SAFE_INTEGER, 'k')
  if (kErr) errors.k = datasetN !== null && /at most/.test(kErr) ? `k must be at most n = ${datasetN}` : kErr
  const [maxIterations, itErr] = integerIn(values.maxIterations, 1, runBounds.maxIterations, 'Iterations')
  if (itErr) errors.maxIterations = itErr
  let version: number | null = null
  if (values.topologyId !== '' && values.topologyVersion !== '') {
    const [v, vErr] = integerIn(
      values.topologyVersion,
      1,
      ctx.topology?.latestVersion ?? Number.MAX_SAFE_INTEGER,
      'Version',
    )
    if (vErr) errors.topologyVersion = vErr
    version = v
  }
  const [workers, wErr] = checkWorkers(values.workers, ctx, version, values.launcher)
  if (wErr) errors.workers = wErr
  const placed = values.topologyId !== '' && values.mapping.length > 0
  if (placed && workers !== null && workers !== values.mapping.length)
    errors.workers = `Placed by ${values.mappingPlanner || 'a plan'}: the mapping has ${countOf(values.mapping.length, 'worker')}`
  if (placed && values.launcher !== 'local')
    errors.launcher = 'A placement plan places local workers; joined and Slurm workers take their host’s rack'
  const [slots, sErr] = integerIn(values.slots, 1, runBounds.slots, 'Slots')
  if (sErr) errors.slots = sErr
  const [seed, seedErr] = integerIn(values.seed, 0, Number.MAX_SAFE_INTEGER, 'Seed')
  if (seedErr) errors.seed = seedErr
  const tol = Number(values.tol.trim())
  if (values.tol.trim() === '' || !Number.isFinite(tol) || tol < 0) errors.tol = 'tol must be a number ≥ 0'
  if (ctx.limits && !ctx.limits.kernels.includes(values.kernel))
    errors.kernel = `Kernel must be one of ${ctx.limits.kernels.join(', ')}`
  const slurm = slurmInput(values, errors)
  const hnsw = hnswInput(values, errors)
  if (Object.keys(errors).length > 0) return { ok: false, errors }
  const input: CreateRunInput = {
    datasetId: values.datasetId,
    k: k as number,
    maxIterations: maxIterations as number,
    workers: workers as number,
    slots: slots as number,
    seed: seed as number,
    tol,
    broadcast: values.broadcast,
    chainOrder: values.chainOrder,
    aggregation: values.aggregation,
    reduction: values.reduction,
    algorithm: values.algorithm,
    assignment: values.assignment,
    ...(values.assignment === 'approximate' ? { approximateSearch: values.approximateSearch } : {}),
    partials: values.partials,
    encoding: values.encoding,
    ...(hnsw === undefined ? {} : { hnsw }),
    init: values.init,
    kernel: values.kernel,
    ...(values.topologyId === '' ? {} : { topologyId: values.topologyId }),
    ...(version === null ? {} : { topologyVersion: version }),
    ...(placed ? { mapping: values.mapping } : {}),
    ...(placed && values.mappingPlanner !== '' ? { mappingPlanner: values.mappingPlanner } : {}),
    ...(values.launcher === 'local' ? {} : { launcher: values.launcher }),
    ...(slurm === undefined ? {} : { slurm }),
  }
  // The body must pass the server's own schema: whatever the checks above do not restate (the
  // kernel's spelling, a bound added later) is found here, at its field.
  const checked = CreateRun.safeParse(input)
  if (checked.success) return { ok: true, input }
  for (const issue of checked.error.issues) {
    const field = issueField(issue.path)
    if (field !== undefined && field in values && !errors[field as keyof RunFormValues])
      errors[field as keyof RunFormValues] = schemaMessages[field] ?? `${field}: ${issue.message}`
  }
  return { ok: false, errors }
}

/**
 * The form's starting values for a page address: `?topology=ID&version=N` preselects a topology;
 * `&node=A&node=B…&planner=P` attaches a placement (worker i on node i; workers = the node count)
 * and `&aggregation=A` the aggregation its plan priced.
 */
export function runFormFromSearch(search: string): RunFormValues {
  const q = new URLSearchParams(search)
  const topologyId = q.get('topology') ?? ''
  const version = q.get('version') ?? ''
  const mapping = topologyId === '' ? [] : q.getAll('node').filter((n) => n !== '')
  const aggregation = runAggregations.find((a) => a === q.get('aggregation'))
  return {
    ...defaultRunForm,
    // "Cluster this dataset" (the datasets pages) preselects it.
    datasetId: q.get('datasetId') ?? '',
    topologyId,
    topologyVersion: topologyId !== '' && /^\d+$/.test(version) ? version : '',
    ...(mapping.length > 0
      ? {
          mapping,
          mappingPlanner: q.get('planner') ?? '',
          workers: String(mapping.length),
          ...(aggregation !== undefined ? { aggregation } : {}),
        }
      : {}),
  }
}

/** The run form's address for a topology version with a planner's mapping (and its plan's aggregation) attached ("Use for a run"). */
export function placedRunHref(
  topologyId: string,
  version: number,
  planner: string,
  nodes: readonly string[],
  aggregation?: RunFormValues['aggregation'],
): string {
  const q = new URLSearchParams({ topology: topologyId, version: String(version), planner })
  for (const n of nodes) q.append('node', n)
  if (aggregation) q.set('aggregation', aggregation)
  return `/runs?${q.toString()}`
}

/** The form filled with a stored run's settings ("Run again"): every param, the dataset and topology too. */
export function runFormFromRun(run: Pick<Run, 'params'>): RunFormValues {
  const p = run.params
  const text = (v: number | undefined) => (v === undefined ? '' : String(v))
  return {
    ...defaultRunForm,
    datasetId: p.datasetId,
    k: String(p.k),
    maxIterations: String(p.maxIterations),
    workers: String(p.workers),
    slots: String(p.slots),
    tol: String(p.tol),
    seed: String(p.seed),
    broadcast: p.broadcast,
    chainOrder: p.chainOrder,
    aggregation: p.aggregation,
    reduction: p.reduction,
    algorithm: p.algorithm,
    assignment: p.assignment,
    approximateSearch: p.approximateSearch,
    partials: p.partials,
    encoding: p.encoding,
    hnswConnectivity: text(p.hnsw?.connectivity),
    hnswExpansion: text(p.hnsw?.expansion),
    hnswScalar: p.hnsw?.scalar ?? '',
    hnswWalkDegree: text(p.hnsw?.walkDegree),
    hnswWalkMinRecall: text(p.hnsw?.walkMinRecall),
    hnswRecallSample: text(p.hnsw?.recallSample),
    init: p.init,
    kernel: p.kernel,
    topologyId: p.topologyId ?? '',
    topologyVersion: p.topologyId === undefined ? '' : text(p.topologyVersion),
    mapping: p.mapping ?? [],
    mappingPlanner: p.mappingPlanner ?? '',
    launcher: p.launcher ?? 'local',
    slurmPartition: p.slurm?.partition ?? '',
    slurmNodes: text(p.slurm?.nodes),
    slurmTasksPerNode: text(p.slurm?.tasksPerNode),
    slurmTimeLimit: p.slurm?.timeLimit ?? '',
  }
}
