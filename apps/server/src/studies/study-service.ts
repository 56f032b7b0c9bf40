import { randomUUID } from 'node:crypto'
import type { CreateStudy, JobEvent, Study, StudyParams } from '@codebook/shared'
import type { FastifyBaseLogger } from 'fastify'
import { ApiError } from '../http/api-error.ts'
import type { JobFeed } from '../jobs/job-feed.ts'
import { createStoredJobs } from '../jobs/stored-jobs.ts'
import { gridAxes } from './study-plan.ts'
import { runStudyProcess, type StudyJob } from './study-process.ts'
import type { StudyRepo } from './study-repo.ts'

/** Studies that may wait at once; more → 429 `QUEUE_FULL`. */
export const MAX_QUEUED_STUDIES = 20

/** Dependencies of {@link createStudyService}. */
export interface StudyServiceDeps {
  repo: StudyRepo
  /** The job feed the study's events are stored in and sent from. */
  feed: JobFeed
  log: FastifyBaseLogger
  /** The server's home: failure messages name no path under it. */
  home: string
  /** Starts the child process (tests may wrap it). */
  start?: typeof runStudyProcess
}

/** The study service behind `/api/studies`: queue (one at a time), child process, cancel, delete. */
export interface StudyService {
  /** Stores the study `queued` and queues it. @throws ApiError 429 `QUEUE_FULL`, 503 `SHUTTING_DOWN`. */
  create(input: CreateStudy): Promise<Study>
  /** @throws ApiError 404 `STUDY_NOT_FOUND`. */
  get(id: string): Promise<Study>
  /** Newest first. */
  list(): Promise<Study[]>
  /** Cancels a queued or running study; resolves once it is `cancelled`. @throws 409 `STUDY_FINISHED`. */
  cancel(id: string): Promise<Study>
  /** Deletes a study, cancelling it first when it is queued or running. @throws 404. */
  remove(id: string): Promise<void>
  /** Resolves with the record once the study is no longer queued or running. */
  settled(id: string): Promise<Study>
  /** Stored events with seq > after, in order, at most `limit`. @throws ApiError 404 `STUDY_NOT_FOUND`. */
  events(id: string, after: number, limit?: number): Promise<JobEvent[]>
  /** PID of the running study's child process, if any. */
  childPid(id: string): number | undefined
  /** Start-up: `running` studies left by the last server become `interrupted`; queued ones run again. */
  start(): Promise<void>
  /** Stops: the running study is killed and marked `interrupted`; queued ones stay queued. */
  shutdown(): Promise<void>
}

/** `STUDY_NOT_FOUND` (404). */
export function studyNotFound(id: string): ApiError {
  return new ApiError(404, 'STUDY_NOT_FOUND', `no study with id ${id}`)
}

/** The stored parameters of a request: its own, plus the grid's fixed axes. */
function paramsOf(input: CreateStudy): StudyParams {
  const { name: _, kind: __, ...params } = input
  return input.kind === 'grid' ? { ...params, ...gridAxes } : params
}

function defaultName(input: CreateStudy): string {
  if (input.kind === 'reductions')
    return `reductions, n ${input.n}, CV ${input.cv.join('/')}, μc ${input.muC.join('/')}, ${input.runs} runs`
  if (input.kind === 'grid') return `Figure 4 grid, n ${input.n}, ${input.runs} runs a cell`
  return `Markov check, n ${input.n}, ${input.runs} runs`
}

/** Creates the {@link StudyService}. Call `start()` once the app is ready. */
export function createStudyService(deps: StudyServiceDeps): StudyService {
  const { repo } = deps
  const startProcess = deps.start ?? runStudyProcess
  const jobs = createStoredJobs<Study, Study>(
    {
      kind: 'study',
      // One at a time: a study keeps one core busy; the machine's other work needs the rest.
      concurrency: 1,
      maxQueued: MAX_QUEUED_STUDIES,
      store: repo,
      recordOf: (study) => study,
      launch: (study, { inOrder, record }) =>
        startProcess({ kind: study.kind, ...study.params } as StudyJob, {
          onProgress: (fraction, message) =>
            void inOrder(async () => {
              await repo.setProgress(study.id, fraction)
              await record('progress', { fraction, message })
            }),
          onResult: (rows) =>
            void inOrder(async () => {
              await repo.appendResults(study.id, rows)
              await record('result', rows)
            }),
        }),
    },
    deps,
  )

  return {
    async create(input) {
      jobs.ensureRoom()
      const study = await repo.insert(
        randomUUID(),
        input.name ?? defaultName(input),
        input.kind,
        paramsOf(input),
      )
      await jobs.submit(study)
      return study
    },
    get: jobs.stored,
    list: () => repo.list(),
    cancel: jobs.cancel,
    async remove(id) {
      await jobs.stop(id)
      if (!(await repo.remove(id))) throw studyNotFound(id)
      await deps.feed.remove('study', id)
    },
    settled: jobs.settled,
    events: jobs.events,
    childPid: jobs.childPid,
    start: jobs.start,
    shutdown: jobs.shutdown,
  }
}
