import { randomUUID } from 'node:crypto'
import type { CreateStudy, Study, StudyEvent, StudyParams } from '@codebook/shared'
import type { FastifyBaseLogger } from 'fastify'
import { ApiError } from '../http/api-error.ts'
import { followChild, hasCode } from '../jobs/follow-child.ts'
import { createJobQueue, JobStopped } from '../jobs/job-queue.ts'
import { createOrderedUpdates } from '../jobs/ordered-updates.ts'
import { gridAxes } from './study-plan.ts'
import { runStudyProcess, type StudyJob, type StudyProcess } from './study-process.ts'
import { FINAL_STUDY_STATUSES, type StudyEnding, type StudyRepo } from './study-repo.ts'

/** Studies that may wait at once; more → 429 `QUEUE_FULL`. */
export const MAX_QUEUED_STUDIES = 20

/** Dependencies of {@link createStudyService}. */
export interface StudyServiceDeps {
  repo: StudyRepo
  /** Called for every event, in order per study (the plugin emits `study:event`). */
  emit: (event: StudyEvent) => void
  log: FastifyBaseLogger
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
  const { repo, log } = deps
  const startProcess = deps.start ?? runStudyProcess
  const processes = new Map<string, StudyProcess>()
  const { inOrder, pending, all } = createOrderedUpdates(log, 'study')

  async function getStored(id: string): Promise<Study> {
    const study = await repo.get(id)
    if (study === undefined) throw studyNotFound(id)
    return study
  }

  const emitState = (study: Study) => deps.emit({ studyId: study.id, type: 'state', data: study })

  async function end(id: string, ending: StudyEnding): Promise<void> {
    await inOrder(id, async () => {
      const final = await repo.finish(id, ending)
      if (final) emitState(final)
    })
  }

  const stopped = (stop: JobStopped): StudyEnding => stop.ending('STUDY_CANCELLED', 'study')

  const jobs = createJobQueue(
    {
      name: 'study',
      // One at a time: a study keeps one core busy; the machine's other work needs the rest.
      concurrency: 1,
      maxQueued: MAX_QUEUED_STUDIES,
      queueFull: (waiting) =>
        new ApiError(429, 'QUEUE_FULL', `${waiting} studies are already waiting; try again later`),
      closedError: () => new ApiError(503, 'SHUTTING_DOWN', 'the server is shutting down'),
      run: execute,
      // Cancelled before its turn; one left waiting at shutdown stays queued for the next start.
      dropped: (id, stop) => (stop.why === 'cancelled' ? end(id, stopped(stop)) : undefined),
      async recover() {
        const interrupted = await repo.interruptRunning()
        for (const s of interrupted) emitState(s)
        if (interrupted.length > 0)
          log.warn({ count: interrupted.length }, 'studies cut off by the last shutdown marked interrupted')
        return repo.listQueued()
      },
    },
    log,
  )

  async function execute(id: string, signal: AbortSignal): Promise<void> {
    const study = await repo.markRunning(id)
    if (study === undefined) return // cancelled while queued
    await inOrder(id, async () => emitState(study))
    try {
      const job = { kind: study.kind, ...study.params } as StudyJob
      const proc = startProcess(job, {
        onProgress: (fraction, message) =>
          void inOrder(id, async () => {
            await repo.setProgress(id, fraction)
            deps.emit({ studyId: id, type: 'progress', data: { fraction, message } })
          }),
        onResult: (rows) =>
          void inOrder(id, async () => {
            await repo.appendResults(id, rows)
            deps.emit({ studyId: id, type: 'result', data: rows })
          }),
      })
      processes.set(id, proc)
      try {
        // Stopped between markRunning and here: followChild stops the child at once.
        await followChild(signal, proc)
      } finally {
        processes.delete(id)
      }
      await end(id, { status: 'succeeded' })
    } catch (err) {
      if (signal.reason instanceof JobStopped) {
        await end(id, stopped(signal.reason))
        return
      }
      const code = hasCode(err) ? err.code : 'STUDY_FAILED'
      const message = err instanceof Error ? err.message : String(err)
      log.warn({ err, studyId: id }, 'study failed')
      await end(id, { status: 'failed', error: { code, message } })
    }
  }

  async function cancel(id: string): Promise<Study> {
    const study = await getStored(id)
    if (await jobs.cancel(id)) {
      await pending(id)
      return getStored(id)
    }
    if (FINAL_STUDY_STATUSES.includes(study.status))
      throw new ApiError(409, 'STUDY_FINISHED', `study ${id} has already ended (${study.status})`)
    // Queued in the table but not in this queue (a race with start-up): end it here.
    await end(id, stopped(new JobStopped('cancelled')))
    return getStored(id)
  }

  return {
    async create(input) {
      jobs.ensureRoom()
      const id = randomUUID()
      const study = await repo.insert(id, input.name ?? defaultName(input), input.kind, paramsOf(input))
      await inOrder(id, async () => emitState(study))
      jobs.submit(id)
      return study
    },

    get: getStored,

    list: () => repo.list(),

    cancel,

    async remove(id) {
      const study = await getStored(id)
      if (!FINAL_STUDY_STATUSES.includes(study.status)) await cancel(id).catch(() => undefined)
      await pending(id)
      if (!(await repo.remove(id))) throw studyNotFound(id)
      deps.emit({ studyId: id, type: 'deleted' })
    },

    async settled(id) {
      await jobs.settled(id)
      await pending(id)
      return getStored(id)
    },

    childPid: (id) => processes.get(id)?.child.pid,

    start: () => jobs.start(),

    async shutdown() {
      await jobs.close()
      await all()
    },
  }
}
