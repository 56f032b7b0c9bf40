/** What {@link followChild} needs of a running child: its end, and a way to stop it. */
export interface StoppableChild {
  done: Promise<void>
  cancel(): Promise<void>
}

/**
 * Waits for a job's child process to end, stopping it when the job's `signal` aborts (also when
 * it had aborted before the child started). Rejects with the child's error, or with the signal's
 * reason once a stopped child has exited, so the caller records a stopped job as such.
 */
export async function followChild(signal: AbortSignal, child: StoppableChild): Promise<void> {
  const cancel = () => void child.cancel()
  if (signal.aborted) cancel()
  else signal.addEventListener('abort', cancel, { once: true })
  try {
    await child.done
  } finally {
    signal.removeEventListener('abort', cancel)
  }
  signal.throwIfAborted()
}

/** Whether `err` carries a string `code` (a `CodebookError`, a `ChildJobError`, an `ApiError`). */
export function hasCode(err: unknown): err is Error & { code: string } {
  return err instanceof Error && typeof (err as { code?: unknown }).code === 'string'
}
