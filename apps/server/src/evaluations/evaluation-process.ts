import { type ChildProcess, fork } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { EvaluationProgress, LabelledImageSource, VocabularyEvaluation } from '@codebook/runtime'

/** What the child needs to run `evaluateVocabularies`. */
export interface EvaluationJob {
  source: LabelledImageSource
  ks: number[]
  hog: { patch: number; stride: number; cell: number; bins: number }
  trainFraction: number
  seed: number
}

/** Parent → child. */
export type ToChild = { type: 'start'; job: EvaluationJob } | { type: 'cancel' }

/** Child → parent. `VocabularyEvaluation` crosses as JSON: NaN recalls arrive as null. */
export type FromChild =
  | { type: 'progress'; progress: EvaluationProgress }
  | { type: 'result'; result: VocabularyEvaluation }
  | { type: 'done' }
  | { type: 'error'; code: string; message: string }

/** Callbacks of {@link runEvaluationProcess}. */
export interface EvaluationProcessHandlers {
  onProgress(p: EvaluationProgress): void
  onResult(r: VocabularyEvaluation): void
}

/** A running evaluation child. `done` resolves when it has exited; it rejects with the child's coded error. */
export interface EvaluationProcess {
  child: ChildProcess
  done: Promise<void>
  /** Asks the child to stop (it closes its worker pool and exits); SIGKILL after `graceMs`. */
  cancel(graceMs?: number): Promise<void>
}

/** An error the child reported, with the runtime's code. */
export class EvaluationChildError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

/**
 * How to start the child: compiled JavaScript next to this module, or (tests, tsx) the TypeScript
 * source through tsx with the `@codebook/source` condition, as the runtime starts its workers.
 */
function childCommand(): { entry: string; execArgv: string[] } {
  const self = fileURLToPath(import.meta.url)
  if (self.endsWith('.ts')) {
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href
    return {
      entry: fileURLToPath(new URL('./evaluation-child.ts', import.meta.url)),
      execArgv: ['--conditions=@codebook/source', '--import', tsx],
    }
  }
  return { entry: fileURLToPath(new URL('./evaluation-child.js', import.meta.url)), execArgv: [] }
}

/**
 * Runs one evaluation in a child process, so dense HOG, histogram encoding and SVM training
 * (synchronous JavaScript) never block the server's event loop. The child starts its own k-means
 * worker processes and closes them before it exits.
 */
export function runEvaluationProcess(
  job: EvaluationJob,
  handlers: EvaluationProcessHandlers,
): EvaluationProcess {
  const { entry, execArgv } = childCommand()
  const child = fork(entry, [], {
    execArgv,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    serialization: 'json',
  })
  let failure: EvaluationChildError | undefined
  let finished = false
  child.on('message', (m: FromChild) => {
    if (m.type === 'progress') handlers.onProgress(m.progress)
    else if (m.type === 'result') handlers.onResult(m.result)
    else if (m.type === 'error') failure = new EvaluationChildError(m.code, m.message)
    else finished = true
  })
  const done = new Promise<void>((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code, signal) => {
      if (failure) reject(failure)
      else if (finished) resolve()
      else
        reject(
          new EvaluationChildError(
            'EVALUATION_CRASHED',
            `the evaluation process exited early (${signal ?? `code ${code}`})`,
          ),
        )
    })
  })
  child.send({ type: 'start', job } satisfies ToChild)
  return {
    child,
    done,
    async cancel(graceMs = 5000) {
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
      if (child.connected) child.send({ type: 'cancel' } satisfies ToChild)
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
      await exited
      clearTimeout(timer)
    },
  }
}
