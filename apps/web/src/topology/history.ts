/**
 * An undo stack of immutable states: `present` plus the states before it. `key` names the last
 * edit so a burst of edits to one field (typing "10" → "100") coalesces into one undo step.
 */
export interface History<T> {
  past: readonly T[]
  present: T
  /** Coalescing key of the edit that produced `present`, or null. */
  key: string | null
}

/** Undo steps kept; older ones are dropped (each state is a whole topology). */
export const HISTORY_LIMIT = 200

/** A history with `present` and nothing to undo. */
export function startHistory<T>(present: T): History<T> {
  return { past: [], present, key: null }
}

/**
 * Records `next` as the new present. Same object as the present → no change. When `key` is given
 * and equals the previous edit's key, `next` replaces the present without a new undo step.
 */
export function pushHistory<T>(h: History<T>, next: T, key: string | null = null): History<T> {
  if (next === h.present) return h
  if (key !== null && key === h.key) return { past: h.past, present: next, key }
  const past = [...h.past, h.present]
  if (past.length > HISTORY_LIMIT) past.splice(0, past.length - HISTORY_LIMIT)
  return { past, present: next, key }
}

/** Steps back one state; unchanged when there is nothing to undo. */
export function undoHistory<T>(h: History<T>): History<T> {
  const prev = h.past.at(-1)
  if (h.past.length === 0) return h
  return { past: h.past.slice(0, -1), present: prev as T, key: null }
}

/** True when `undoHistory` would change something. */
export function canUndo<T>(h: History<T>): boolean {
  return h.past.length > 0
}
