/**
 * Launcher benchmark: one K-means run per launcher (local, join, slurm on a one-node cluster this
 * script starts), repeated; prints per run the seconds until every worker had registered and the
 * seconds to the end of the run, and the machine's load. Not a test: figures depend on the load.
 *
 *   timeout 600 node --conditions=@codebook/source --import tsx apps/server/bench/launchers.ts [--repeat 3]
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { workerCommand } from '@codebook/runtime/collectives'
import { type CreateRunInput, Dataset, Run } from '@codebook/shared'
import { startServer } from '../src/start-server.ts'
import { makeVectors, npyFloat32 } from '../src/test-support/payloads.ts'
import { slurmUnavailable, startSlurm } from '../src/test-support/slurm.ts'
import { authHeaders, testConfig } from '../src/test-support/test-server.ts'

const { values: args } = parseArgs({
  options: {
    repeat: { type: 'string', default: '3' },
    workers: { type: 'string', default: '2' },
    n: { type: 'string', default: '20000' },
  },
})
const repeat = Number(args.repeat)
const workers = Number(args.workers)

const home = await mkdtemp(join(tmpdir(), 'codebook-bench-launchers-'))
const server = await startServer(testConfig(home, undefined))
const noSlurm = slurmUnavailable()
const cluster = noSlurm === null ? await startSlurm() : null
if (cluster) process.env.SLURM_CONF = cluster.env.SLURM_CONF
const joiners: ChildProcess[] = []
try {
  const res = await fetch(`${server.url}/api/datasets?name=bench&format=npy&wait=true`, {
    method: 'POST',
    headers: { ...authHeaders, 'content-type': 'application/octet-stream' },
    body: npyFloat32(makeVectors(Number(args.n), 16, 3)),
  })
  const datasetId = Dataset.parse(await res.json()).id
  const base = { datasetId, k: 16, maxIterations: 5, tol: 0, workers, kernel: 'reference' }
  const launchers: CreateRunInput[] = [
    { ...base, launcher: 'local' },
    { ...base, launcher: 'join' },
    ...(cluster ? [{ ...base, launcher: 'slurm' as const, slurm: { partition: cluster.partition } }] : []),
  ]
  console.log(
    JSON.stringify({
      load: loadavg().map((l) => l.toFixed(2)),
      workers,
      n: Number(args.n),
      slurm: noSlurm ?? 'yes',
    }),
  )
  for (let r = 0; r < repeat; r++)
    for (const body of launchers) {
      const t0 = performance.now()
      const created = Run.parse(
        await (
          await fetch(`${server.url}/api/runs`, {
            method: 'POST',
            headers: { ...authHeaders, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          })
        ).json(),
      )
      let ready = Number.NaN
      let started = false
      for (;;) {
        const run = await server.app.runs.get(created.id)
        // join: start the workers as a user would, with the run's command.
        if (body.launcher === 'join' && !started && run.launch?.joinCommand) {
          started = true
          const { command, args: base } = workerCommand()
          for (let i = 0; i < workers; i++)
            joiners.push(
              spawn(command, [...base, ...run.launch.joinCommand.split(' ').slice(2)], { stdio: 'ignore' }),
            )
        }
        if (
          (run.launch?.workers.length ?? 0) === workers ||
          (run.status !== 'running' && run.status !== 'queued')
        )
          break
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
      ready = (performance.now() - t0) / 1000
      const done = await server.app.runs.settled(created.id)
      const total = (performance.now() - t0) / 1000
      console.log(
        JSON.stringify({
          launcher: body.launcher,
          status: done.status,
          readySeconds: +ready.toFixed(3),
          totalSeconds: +total.toFixed(3),
        }),
      )
    }
} finally {
  for (const j of joiners) j.kill('SIGKILL')
  await server.close()
  await cluster?.stop()
  await rm(home, { recursive: true, force: true })
}
