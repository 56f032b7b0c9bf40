import type {
  EvaluationProgress,
  LabelledImageSource,
  VocabularyEvaluation,
} from '@codebook/runtime/evaluation'
import { childCommand } from '../child/child-command.ts'
import { type ChildJob, ChildJobError, startChildJob } from '../child/child-job.ts'

/** What the child needs to run `evaluateVocabularies`. */
export interface EvaluationJob {
  source: LabelledImageSource
  ks: number[]
  /** Stored vocabularies to evaluate as given: the child reads each centroids file (label = id); k for progress. */
  vocabularies: { id: string; file: string; k: number }[]
  hog: { patch: number; stride: number; cell: number; bins: number }
  trainFraction: number
  seed: number
}

/** Child → parent, besides `done` / `error`. `VocabularyEvaluation` crosses as JSON: NaN recalls arrive as null. */
export type EvaluationMessage =
  | { type: 'progress'; progress: EvaluationProgress }
  | { type: 'result'; result: VocabularyEvaluation }

/** Callbacks of {@link runEvaluationProcess}. */
export interface EvaluationProcessHandlers {
  onProgress(p: EvaluationProgress): void
  onResult(r: VocabularyEvaluation): void
}

/** A running evaluation child. `done` resolves when it has exited; it rejects with the child's coded error. */
export interface EvaluationProcess {
  child: ChildJob['child']
  done: Promise<void>
  /** Asks the child to stop (it closes its worker pool and exits); SIGKILL after `graceMs`. */
  cancel(graceMs?: number): Promise<void>
}

/**
 * Runs one evaluation in a child process (`evaluation-child.ts`), so dense HOG, histogram
 * encoding and SVM training (synchronous JavaScript) never block the server's event loop. The
 * child starts its own k-means worker processes and closes them before it exits.
 */
export function runEvaluationProcess(
  job: EvaluationJob,
  handlers: EvaluationProcessHandlers,
): EvaluationProcess {
  const proc = startChildJob<EvaluationJob, EvaluationMessage>(
    childCommand(import.meta.url, './evaluation-child'),
    job,
    {
      onMessage: (m) => {
        if (m.type === 'progress') handlers.onProgress(m.progress)
        else handlers.onResult(m.result)
      },
      crashed: (exit) =>
        new ChildJobError('EVALUATION_CRASHED', `the evaluation process exited early (${exit})`),
    },
  )
  return { child: proc.child, done: proc.done, cancel: (graceMs) => proc.stop(graceMs ?? 5000) }
}
