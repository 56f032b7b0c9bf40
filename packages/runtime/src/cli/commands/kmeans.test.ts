import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { hnswBounds, IterationReport, runBounds, runDefaults, Topology } from '@codebook/shared'
import { Command } from 'commander'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openNpy, writeNpy } from '../../formats/index.ts'
import { decodeCentroids, encodeCentroids } from '../../kmeans/encoding/centroid-encoding.ts'
import { computeInit } from '../../kmeans/init/compute-init.ts'
import { kmeansParallelInit } from '../../kmeans/init/kmeans-parallel.ts'
import { randomInit } from '../../kmeans/init/random-init.ts'
import { assignReference, createReferenceKernel } from '../../kmeans/kernels/reference-kernel.ts'
import { lloydReference } from '../../kmeans/lloyd-reference.ts'
import { createRng } from '../../random/rng.ts'
import { main } from '../main.ts'
import type { CommandIo } from '../progress.ts'
import { registerKmeans, runKmeansCommand } from './kmeans.ts'

let dir: string
const n = 900
const d = 5
const k = 6
const points = new Float32Array(n * d)

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'codebook-kmeans-cli-'))
  const rng = createRng(21)
  for (let i = 0; i < n; i++) for (let t = 0; t < d; t++) points[i * d + t] = rng.normal() + (i % k) * 0.8
  await writeNpy(join(dir, 'x.npy'), points, n, d)
  await writeNpy(join(dir, 'init.npy'), points.subarray(0, k * d), k, d)
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

function collect(): CommandIo & { out: string[] } {
  const out: string[] = []
  return { out, stdout: { write: (s: string) => out.push(s) }, stderr: process.stderr }
}

describe('codebook kmeans', () => {
  it('takes its flag defaults from the shared runDefaults (as the server and the web form do)', () => {
    const program = new Command()
    registerKmeans(program, collect())
    const cmd = program.commands.find((c) => c.name() === 'kmeans')!
    const defaults = Object.fromEntries(cmd.options.map((o) => [o.attributeName(), o.defaultValue]))
    expect(defaults).toMatchObject({
      iterations: runDefaults.maxIterations,
      tol: runDefaults.tol,
      workers: runDefaults.workers,
      slots: runDefaults.slots,
      broadcast: runDefaults.broadcast,
      chainOrder: runDefaults.chainOrder,
      aggregation: runDefaults.aggregation,
      reduction: runDefaults.reduction,
      algorithm: runDefaults.algorithm,
      kernel: runDefaults.kernel,
      seed: runDefaults.seed,
    })
  })

  it('--json prints one IterationReport per line, a done line, and writes the reference centroids to --out', async () => {
    const topo = join(dir, 'topo.json')
    const io = collect()
    expect(
      await mainWith(
        [
          'topology',
          'generate',
          '--racks',
          '2',
          '--nodes-per-rack',
          '1',
          '--node-gbps',
          '1',
          '--uplink-gbps',
          '10',
        ],
        io,
      ),
    ).toBe(0)
    await writeFile(topo, io.out.join(''))
    expect(Topology.parse(JSON.parse(io.out.join(''))).sites[0]!.racks).toHaveLength(2)

    const run = collect()
    const out = join(dir, 'c.npy')
    await runKmeansCommand(
      {
        data: join(dir, 'x.npy'),
        init: join(dir, 'init.npy'),
        iterations: 50,
        tol: 0,
        workers: 2,
        slots: 2,
        broadcast: 'chain',
        chainOrder: 'topology',
        aggregation: 'ring',
        topology: topo,
        seed: 1,
        chunkBytes: 64,
        kernel: 'reference',
        out,
        json: true,
      },
      run,
    )
    const lines = run.out
      .join('')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    const done = lines.pop()
    const reference = lloydReference(points, d, points.slice(0, k * d), {
      maxIterations: 50,
      tol: 0,
      seed: 1,
    })
    expect(done).toEqual({ done: true, iterations: reference.iterations, inertia: expect.any(Number), out })
    expect(lines).toHaveLength(reference.iterations)
    for (const [i, l] of lines.entries()) {
      const r = IterationReport.parse(l)
      expect(r.iteration).toBe(i + 1)
      // Two workers on two racks: the broadcast crosses the rack boundary once.
      expect(r.stages.broadcast.crossRackBytes).toBe(k * d * 4)
    }
    const f = await openNpy(out)
    const got = (await f.readRows(0, k)) as Float32Array
    await f.close()
    for (let i = 0; i < k * d; i++)
      expect(Math.abs(got[i]! - reference.centroids[i]!)).toBeLessThan(
        1e-4 * Math.max(1, Math.abs(reference.centroids[i]!)),
      )
  })

  it('widens uint8 (quantised HOG) data and seeds k-means++ when no --init is given', async () => {
    const bytes = Uint8Array.from(points, (v) => Math.max(0, Math.min(255, Math.round(v * 20 + 60))))
    await writeNpy(join(dir, 'u8.npy'), bytes, n, d)
    const io = collect()
    const res = await runKmeansCommand(
      {
        data: join(dir, 'u8.npy'),
        k,
        iterations: 50,
        tol: 0,
        workers: 2,
        slots: 1,
        broadcast: 'mst',
        chainOrder: 'rank',
        aggregation: 'allreduce',
        seed: 4,
        chunkBytes: 4096,
        kernel: 'reference',
        json: true,
      },
      io,
    )
    const widened = Float32Array.from(bytes)
    // Same seed → same k-means++ init over the (whole, since n is small) data.
    const init = await computeInit('kmeans++', widened, widened.length / d, d, k, 4)
    const reference = lloydReference(widened, d, init, { maxIterations: 50, tol: 0, seed: 4 })
    expect(res.iterations).toBe(reference.iterations)
    for (let i = 0; i < k * d; i++)
      expect(Math.abs(res.centroids[i]! - reference.centroids[i]!)).toBeLessThan(
        1e-4 * Math.max(1, Math.abs(reference.centroids[i]!)),
      )
  })

  it('--init random|kmeans-parallel seed the init; --algorithm, --encoding and --reduction reach the report', async () => {
    // Through argv: random init (k distinct rows, seeded), hamerly map tasks, float16 broadcast.
    const io = collect()
    const argv = ['kmeans', '--data', join(dir, 'x.npy'), '--k', String(k), '--init', 'random', '--seed', '5']
    const extra = [
      '--algorithm',
      'hamerly',
      '--encoding',
      'float16',
      '--reduction',
      'noncommut-tree-dyn',
      '--aggregation',
      'ring',
      '--iterations',
      '3',
      '--tol',
      '0',
      '--json',
    ]
    const err: string[] = []
    const write = process.stderr.write.bind(process.stderr)
    process.stderr.write = ((s: string) => err.push(s) > 0) as typeof process.stderr.write
    try {
      expect(await mainWith([...argv, ...extra], io)).toBe(0)
    } finally {
      process.stderr.write = write
    }
    expect(err.join('')).toContain('--aggregation ring is not used with --reduction noncommut-tree-dyn')
    const reports = io.out
      .join('')
      .split('\n')
      .filter((l) => l.startsWith('{"iteration"'))
      .map((l) => IterationReport.parse(JSON.parse(l)))
    expect(reports).toHaveLength(3)
    for (const r of reports) expect(r.reduction).toBe('noncommut-tree-dyn')
    const randomRows = randomInit(points, n, d, k, createRng(5)).centroids
    const decoded = decodeCentroids(encodeCentroids(randomRows, k, d, 'float16'), k, d, 'float16')
    const sse = assignReference(points, decoded, d).distancesSq.reduce((s, v) => s + v, 0)
    expect(Math.abs(reports[0]!.inertia - sse) / sse).toBeLessThan(1e-6)
    expect(reports[0]!.broadcastBytesSaved).toBe(k * d * 2)
    expect(reports[0]!.distanceFraction).toBeGreaterThanOrEqual(1)

    // k-means|| (exact Yinyang map tasks): the reference Lloyd from the same seeded k-means|| init.
    const res = await runKmeansCommand(
      {
        data: join(dir, 'x.npy'),
        k,
        init: 'kmeans-parallel',
        algorithm: 'yinyang',
        iterations: 50,
        tol: 0,
        workers: 2,
        slots: 1,
        broadcast: 'chain',
        chainOrder: 'rank',
        aggregation: 'three-stage',
        seed: 7,
        chunkBytes: 4096,
        kernel: 'reference',
        json: true,
      },
      collect(),
    )
    const init = (
      await kmeansParallelInit(points, n, d, k, { rng: createRng(7), kernel: createReferenceKernel() })
    ).centroids
    const reference = lloydReference(points, d, init, { maxIterations: 50, tol: 0, seed: 7 })
    expect(res.algorithm).toBe('yinyang')
    expect(res.iterations).toBe(reference.iterations)
    for (let i = 0; i < k * d; i++)
      expect(Math.abs(res.centroids[i]! - reference.centroids[i]!)).toBeLessThan(
        1e-4 * Math.max(1, Math.abs(reference.centroids[i]!)),
      )
  })

  it('parses its flags with the shared run spec: a value the server refuses is bad input naming the flag and bound', async () => {
    const err: string[] = []
    const write = process.stderr.write.bind(process.stderr)
    process.stderr.write = ((s: string) => err.push(s) > 0) as typeof process.stderr.write
    const base = ['kmeans', '--data', join(dir, 'x.npy'), '--k', '3']
    try {
      // Bounds of `CreateRun` (runBounds, hnswBounds): commander's own parsers accept these numbers.
      expect(await mainWith([...base, '--slots', String(runBounds.slots + 1)], collect())).toBe(2)
      expect(
        await mainWith([...base, '--hnsw-connectivity', String(hnswBounds.connectivity + 1)], collect()),
      ).toBe(2)
      expect(await mainWith([...base, '--iterations', String(runBounds.maxIterations + 1)], collect())).toBe(
        2,
      )
    } finally {
      process.stderr.write = write
    }
    const text = err.join('')
    expect(text).toContain('BAD_OPTION')
    for (const flag of ['--slots', '--hnsw-connectivity', '--iterations']) expect(text).toContain(`${flag}:`)
    expect(text).toContain(String(runBounds.slots))
    expect(text).toContain(String(hnswBounds.connectivity))
  })

  it('an unknown --reduction is bad input (exit 2) naming the choices', async () => {
    const io = collect()
    const argv = ['kmeans', '--data', join(dir, 'x.npy'), '--k', '3', '--reduction', 'ring']
    const err: string[] = []
    const write = process.stderr.write.bind(process.stderr)
    process.stderr.write = ((s: string) => err.push(s) > 0) as typeof process.stderr.write
    try {
      expect(await mainWith(argv, io)).toBe(2)
    } finally {
      process.stderr.write = write
    }
    expect(err.join('')).toContain('tree-dyn')
  })

  it('--mapping of a K-means plan runs the aggregation the plan priced unless --aggregation is given', async () => {
    const io = collect()
    const gen = ['topology', 'generate', '--sites', '2', '--racks', '1', '--nodes-per-rack', '2']
    expect(await mainWith([...gen, '--node-gbps', '1', '--uplink-gbps', '10'], io)).toBe(0)
    const topo = join(dir, 'two-sites.json')
    await writeFile(topo, io.out.join(''))
    const plan = join(dir, 'kmeans-plan.json')
    const planned = ['plan', 'mapping', '--processes', '4', '--pattern', 'kmeans', '--k', '8', '--d', '4']
    expect(await mainWith([...planned, '--nodes-per-site', '2', '--out', plan], collect())).toBe(0)
    expect((JSON.parse(await readFile(plan, 'utf8')) as { aggregation: string }).aggregation).toBe('ring')
    const argv = ['kmeans', '--data', join(dir, 'x.npy'), '--k', '3', '--iterations', '1', '--workers', '4']
    const placed = [...argv, '--topology', topo, '--mapping', plan, '--kernel', 'reference']
    const stderrOf = async (extra: string[]) => {
      const err: string[] = []
      const write = process.stderr.write.bind(process.stderr)
      process.stderr.write = ((s: string) => err.push(s) > 0) as typeof process.stderr.write
      try {
        expect(await mainWith([...placed, ...extra], collect())).toBe(0)
      } finally {
        process.stderr.write = write
      }
      return err.join('')
    }
    expect(await stderrOf([])).toContain('note: --aggregation ring, as the plan priced it')
    expect(await stderrOf(['--aggregation', 'three-stage'])).not.toContain('as the plan priced it')
  })

  it('--mapping puts worker i on the topology node its plan gave rank i; bad plans exit 2 with a code', async () => {
    const io = collect()
    const gen = ['topology', 'generate', '--sites', '4', '--racks', '1', '--nodes-per-rack', '2']
    expect(await mainWith([...gen, '--node-gbps', '1', '--uplink-gbps', '10'], io)).toBe(0)
    const topo = join(dir, 'four-sites.json')
    await writeFile(topo, io.out.join(''))
    const plan = join(dir, 'plan.json')
    const planned = ['plan', 'mapping', '--processes', '4', '--pattern', 'dnn', '--nodes-per-site', '2']
    expect(
      await mainWith([...planned, '--planners', 'geo,random', '--seed', '3', '--out', plan], collect()),
    ).toBe(0)
    const saved = JSON.parse(await readFile(plan, 'utf8')) as {
      plans: { algorithm: string; siteOf: number[] }[]
    }
    const siteOf = saved.plans.find((p) => p.algorithm === 'random')!.siteOf
    // Not the identity, so following the plan is told apart from taking the nodes in order.
    expect(siteOf).not.toEqual([0, 0, 1, 1])

    const run = collect()
    const argv = ['kmeans', '--data', join(dir, 'x.npy'), '--k', '3', '--iterations', '1', '--workers', '4']
    const placed = [
      ...argv,
      '--topology',
      topo,
      '--mapping',
      plan,
      '--planner',
      'random',
      '--kernel',
      'reference',
    ]
    expect(await mainWith([...placed, '--broadcast', 'chain', '--json'], run)).toBe(0)
    const report = IterationReport.parse(JSON.parse(run.out.join('').split('\n')[0]!))
    // generateTopology: one rack per site, rack-s in site-s; plan sites match topology sites by position.
    expect(report.workers.map((w) => w.rack)).toEqual(siteOf.map((s) => `rack-${s}`))

    // Bad input is exit 2 before any worker starts, with the code naming what was wrong.
    expect(await mainWith([...placed, '--planner', 'mpipp'], collect())).toBe(2)
    const base = {
      data: join(dir, 'x.npy'),
      k: 3,
      iterations: 1,
      tol: 0,
      workers: 4,
      slots: 1,
      broadcast: 'simple',
      chainOrder: 'rank',
      aggregation: 'direct',
      seed: 1,
      chunkBytes: 1024,
      kernel: 'reference',
    } as const
    const fails = (o: Partial<Parameters<typeof runKmeansCommand>[0]>) =>
      runKmeansCommand({ ...base, ...o }, collect())
    await expect(fails({ mapping: plan })).rejects.toMatchObject({ code: 'MAPPING_NEEDS_TOPOLOGY' })
    await expect(fails({ topology: topo, mapping: plan, planner: 'mpipp' })).rejects.toMatchObject({
      code: 'PLANNER_NOT_IN_PLAN',
    })
    await expect(fails({ topology: topo, mapping: join(dir, 'x.npy') })).rejects.toMatchObject({
      code: 'PLAN_UNREADABLE',
    })
    await expect(fails({ topology: topo, mapping: plan, workers: 5 })).rejects.toMatchObject({
      code: 'PLAN_TOO_SMALL',
    })
  })

  it('rejects a topology with fewer nodes than workers, with a coded error', async () => {
    const io = collect()
    const topo = join(dir, 'small.json')
    expect(
      await mainWith(
        [
          'topology',
          'generate',
          '--racks',
          '1',
          '--nodes-per-rack',
          '1',
          '--node-gbps',
          '1',
          '--uplink-gbps',
          '1',
        ],
        io,
      ),
    ).toBe(0)
    await writeFile(topo, io.out.join(''))
    await expect(
      runKmeansCommand(
        {
          data: join(dir, 'x.npy'),
          k: 3,
          iterations: 1,
          tol: 0,
          workers: 2,
          slots: 1,
          broadcast: 'simple',
          chainOrder: 'rank',
          aggregation: 'direct',
          topology: topo,
          seed: 1,
          chunkBytes: 1024,
          kernel: 'reference',
        },
        collect(),
      ),
    ).rejects.toMatchObject({ code: 'TOPOLOGY_TOO_SMALL' })
  })
})

/** Runs the CLI with a stdout collector by temporarily routing process.stdout writes. */
async function mainWith(argv: string[], io: CommandIo & { out: string[] }): Promise<number> {
  const write = process.stdout.write.bind(process.stdout)
  process.stdout.write = ((s: string) => {
    io.out.push(s)
    return true
  }) as typeof process.stdout.write
  try {
    return await main(argv)
  } finally {
    process.stdout.write = write
  }
}
