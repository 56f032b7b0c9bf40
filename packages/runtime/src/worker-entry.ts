/**
 * Entry point of a worker process the driver spawns: `worker-entry.{ts,js} --join HOST:PORT
 * [--rack R] [--token T]`. Kept apart from the CLI so a spawned worker loads only the runtime it
 * needs (not commander and every command), which keeps start-up short.
 */

import { workerApplications } from './applications.ts'
import { parseHostPort } from './framework/spawn.ts'
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
await runWorker({
  join: parseHostPort(join),
  applications: workerApplications,
  rack: arg('--rack'),
  token: arg('--token'),
  now: () => performance.now(),
})
process.exit(0)
