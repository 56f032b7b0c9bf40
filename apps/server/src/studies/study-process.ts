import type { CreateStudy, StudyResults } from '@codebook/shared'
import { childCommand } from '../child/child-command.ts'
import { type ChildJob, ChildJobError, startChildJob } from '../child/child-job.ts'

/** What the child plays: the study's kind and its parameters (defaults filled in, no name). */
export type StudyJob = CreateStudy extends infer S ? (S extends CreateStudy ? Omit<S, 'name'> : never) : never

/** Child → parent, besides `done` / `error`. */
export type StudyMessage =
  | { type: 'progress'; fraction: number; message: string }
  | { type: 'result'; rows: StudyResults }

/** Callbacks of {@link runStudyProcess}. */
export interface StudyProcessHandlers {
  onProgress(fraction: number, message: string): void
  onResult(rows: StudyResults): void
}

/** A running study child. `done` resolves when it has exited; it rejects with the child's coded error. */
export interface StudyProcess {
  child: ChildJob['child']
  done: Promise<void>
  /** Stops the child at once (it holds nothing that needs closing). */
  cancel(): Promise<void>
}

/** Plays one study in a child process (`study-child.ts`): the simulation is synchronous CPU work. */
export function runStudyProcess(job: StudyJob, handlers: StudyProcessHandlers): StudyProcess {
  const proc = startChildJob<StudyJob, StudyMessage>(childCommand(import.meta.url, './study-child'), job, {
    onMessage: (m) => {
      if (m.type === 'progress') handlers.onProgress(m.fraction, m.message)
      else handlers.onResult(m.rows)
    },
    crashed: (exit) => new ChildJobError('STUDY_CRASHED', `the study process exited early (${exit})`),
  })
  // A synchronous simulation cannot read a cancel message: kill it.
  return { child: proc.child, done: proc.done, cancel: () => proc.stop(0) }
}
