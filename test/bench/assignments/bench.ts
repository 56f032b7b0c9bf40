/**
 * Assignments export: time of the first (computed) and a cached download, and the server's
 * event-loop delay while the child process computes, against the same computation in-process.
 * See README.md. Not part of `npm test`.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { writeNpy } from '@codebook/runtime/formats'
import { createOrtKernel, generateBlobs } from '@codebook/runtime/kmeans'
import { computeAssignments } from '../../../apps/server/src/vocabularies/assignments/compute-assignments.ts'
import { startTestServer } from '../../support/server.ts'

const { values: args } = parseArgs({
  options: {
    n: { type: 'string', default: '200000' },
    d: { type: 'string', default: '128' },
    k: { type: 'string', default: '1000' },
  },
})
const n = Number(args.n)
const d = Number(args.d)
const k = Number(args.k)

/** Runs `work` while sampling the event loop; returns its wall time and the loop's p99 and max delay. */
async function measured<T>(
  work: () => Promise<T>,
): Promise<{ ms: number; p99: number; max: number; result: T }> {
  const h = monitorEventLoopDelay({ resolution: 10 })
  h.enable()
  const started = performance.now()
  const result = await work()
  const ms = performance.now() - started
  h.disable()
  return { ms, p99: h.percentile(99) / 1e6, max: h.max / 1e6, result }
}

const dir = await mkdtemp(join(tmpdir(), 'codebook-bench-assign-'))
const server = await startTestServer()
try {
  const file = join(dir, 'blobs.npy')
  await writeNpy(file, generateBlobs({ n, d, blobs: 50, seed: 1 }).points, n, d)
  const up = await fetch(`${server.url}/api/datasets?name=blobs&format=npy&wait=true`, {
    method: 'POST',
    headers: { ...server.authHeaders, 'content-type': 'application/octet-stream' },
    body: await readFile(file),
  })
  if (up.status !== 201) throw new Error(`upload: ${up.status} ${await up.text()}`)
  const datasetId = ((await up.json()) as { id: string }).id
  // One iteration is enough: the bench measures the assignment, not K-means.
  const created = await fetch(`${server.url}/api/runs`, {
    method: 'POST',
    headers: { ...server.authHeaders, 'content-type': 'application/json' },
    body: JSON.stringify({ datasetId, k, maxIterations: 1, workers: 1 }),
  })
  const run = await server.app.runs.settled(((await created.json()) as { id: string }).id)
  if (run.status !== 'succeeded') throw new Error(`run ${run.status}`)
  const url = `${server.url}/api/vocabularies/${run.vocabularyId}/assignments?format=npy`
  const download = async () => (await (await fetch(url)).arrayBuffer()).byteLength

  const first = await measured(download)
  const cached = await measured(download)
  const kernel = await createOrtKernel()
  const inProcess = await measured(() =>
    computeAssignments(
      {
        datasetDir: join(server.home, 'datasets', datasetId),
        vocabularyFile: join(server.home, 'vocabularies', `${run.vocabularyId}.npy`),
        outDir: join(dir, 'in-process'),
      },
      kernel,
    ),
  )
  await kernel.dispose()
  const row = (name: string, m: { ms: number; p99: number; max: number }) =>
    console.log(
      `${name.padEnd(34)} ${(m.ms / 1000).toFixed(2).padStart(7)} s   loop p99 ${m.p99.toFixed(0).padStart(5)} ms   max ${m.max.toFixed(0).padStart(5)} ms`,
    )
  console.log(`n = ${n}, d = ${d}, k = ${k}; assignments.npy ${first.result} bytes`)
  row('first download (child computes)', first)
  row('cached download', cached)
  row('same computation in-process', inProcess)
} finally {
  await server.close()
  await rm(dir, { recursive: true, force: true })
}
