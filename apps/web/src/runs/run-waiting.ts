import type { Run } from '@codebook/shared'
import { formatDateTime } from '../lib/format.ts'

/**
 * Why a running `join` or `slurm` run has not started iterating: "waiting for 2 of 2 workers to
 * join (timeout at …)", from its launch record; null when it waits for nothing.
 */
export function runWaiting(run: Pick<Run, 'status' | 'launch'>): string | null {
  const waiting = run.launch?.waiting
  if (run.status !== 'running' || !waiting) return null
  const missing = waiting.expected - waiting.joined
  return `waiting for ${missing} of ${waiting.expected} worker${waiting.expected === 1 ? '' : 's'} to join (timeout at ${formatDateTime(waiting.timeoutAt)})`
}
