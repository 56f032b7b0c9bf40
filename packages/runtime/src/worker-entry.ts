/**
 * Entry point of a worker process the driver spawns: `worker-entry.{ts,js} --join HOST:PORT
 * [--rack R] [--host H] [--host-name N]` with its token in $CODEBOOK_JOIN_TOKEN (the flags of
 * `codebook worker`, which also takes `--token`). Kept apart from the CLI so a spawned worker
 * loads only the runtime it needs (not commander and every command), which keeps start-up short.
 */

import { workerApplications } from './applications.ts'
import { JOIN_TOKEN_ENV, parseHostPort } from './framework/spawn.ts'
import { runWorker } from './framework/worker.ts'

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name)
  return i >= 0 ? process.argv[i + 1] : undefined
}

const join = arg('--join')
if (!join) {
  process.stderr.write('worker-entry: --join HOST:PORT is required\n')
  process.exit(2)
}
try {
  await runWorker({
    join: parseHostPort(join),
    applications: workerApplications,
    rack: arg('--rack'),
    token: arg('--token') ?? process.env[JOIN_TOKEN_ENV],
    host: arg('--host'),
    hostName: arg('--host-name'),
    now: () => performance.now(),
  })
} catch (err) {
  // A refused or unreachable worker is bad input (exit 2), as from `codebook worker`.
  const e = err as Error & { code?: string }
  process.stderr.write(`${e.code ?? 'WORKER_FAILURE'}: ${e.message}\n`)
  process.exit(e.code ? 2 : 1)
}
process.exit(0)
