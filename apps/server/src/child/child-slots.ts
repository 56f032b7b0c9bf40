/** A bound on how many child processes of one kind run at once. */
export interface ChildSlots {
  /**
   * Resolves with a release function once a slot is free (first come, first served). Rejects with
   * the signal's reason if `signal` aborts while waiting; a slot taken must be released exactly once.
   */
  acquire(signal?: AbortSignal): Promise<() => void>
  /** Slots taken now. */
  busy(): number
}

/**
 * Creates {@link ChildSlots} of `size`: each import or image check forks a child bounded in
 * memory, and this bounds how many such children (and so how much memory) run at the same time.
 */
export function createChildSlots(size: number): ChildSlots {
  let busy = 0
  const waiting: Array<() => void> = []

  function release(): void {
    const next = waiting.shift()
    if (next) next()
    else busy--
  }

  /** A release that works once, so a double call cannot free a slot it does not hold. */
  function once(): () => void {
    let released = false
    return () => {
      if (released) return
      released = true
      release()
    }
  }

  return {
    acquire(signal) {
      if (signal?.aborted) return Promise.reject(signal.reason)
      if (busy < size) {
        busy++
        return Promise.resolve(once())
      }
      return new Promise((resolve, reject) => {
        // The slot passes straight from the releaser to this waiter: `busy` stays the same.
        const grant = () => {
          signal?.removeEventListener('abort', onAbort)
          resolve(once())
        }
        const onAbort = () => {
          const at = waiting.indexOf(grant)
          if (at >= 0) waiting.splice(at, 1)
          reject(signal!.reason)
        }
        signal?.addEventListener('abort', onAbort, { once: true })
        waiting.push(grant)
      })
    },
    busy: () => busy,
  }
}
