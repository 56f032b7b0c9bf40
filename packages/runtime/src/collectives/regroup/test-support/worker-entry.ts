/**
 * A worker process for the regroup tests: the shipped applications plus `regroup-check`
 * (`spawnWorkerEntry(new URL('./test-support/worker-entry.ts', import.meta.url))`).
 */

import { workerApplications } from '../../../applications.ts'
import { parseHostPort } from '../../../framework/spawn.ts'
import { runWorker } from '../../../framework/worker.ts'
import { regroupCheckApplication } from './combiner-app.ts'

const arg = (name: string) => {
  const i = process.argv.indexOf(name)
  return i >= 0 ? process.argv[i + 1] : undefined
}

await runWorker({
  join: parseHostPort(arg('--join') ?? ''),
  applications: [...workerApplications, regroupCheckApplication],
  token: arg('--token'),
  now: () => performance.now(),
})
process.exit(0)
