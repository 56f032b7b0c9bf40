/**
 * A worker process for the regroup and reduction tests: the shipped applications plus
 * `regroup-check` and `reduce-check`
 * (`spawnWorkerEntry(new URL('../../test-support/collective-check-worker.ts', import.meta.url))`). It
 * lives above `applications.ts`, which it imports, so no folder below imports upwards.
 */

import { workerApplications } from '../applications.ts'
import { reductionCheckApplication } from '../collectives/reduce/test-support.ts'
import { regroupCheckApplication } from '../collectives/regroup/test-support/combiner-app.ts'
import { JOIN_TOKEN_ENV, parseHostPort } from '../framework/spawn.ts'
import { runWorker } from '../framework/worker.ts'

const arg = (name: string) => {
  const i = process.argv.indexOf(name)
  return i >= 0 ? process.argv[i + 1] : undefined
}

await runWorker({
  join: parseHostPort(arg('--join') ?? ''),
  applications: [...workerApplications, regroupCheckApplication, reductionCheckApplication],
  token: process.env[JOIN_TOKEN_ENV],
  now: () => performance.now(),
})
process.exit(0)
