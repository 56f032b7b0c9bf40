import type { Run } from '@codebook/shared'
import { describe, expect, it } from 'vitest'
import { formatDateTime } from '../lib/format.ts'
import { runWaiting } from './run-waiting.ts'

const timeoutAt = '2026-11-28T12:34:00.000Z'
const launch = (waiting: NonNullable<Run['launch']>['waiting']): Run['launch'] => ({
  launcher: 'join',
  slurmJobIds: [],
  workers: [],
  waiting,
})

describe('runWaiting', () => {
  it('says how many workers a running run still waits for, and until when', () => {
    expect(runWaiting({ status: 'running', launch: launch({ joined: 1, expected: 3, timeoutAt }) })).toBe(
      `waiting for 2 of 3 workers to join (timeout at ${formatDateTime(timeoutAt)})`,
    )
    expect(runWaiting({ status: 'running', launch: launch({ joined: 0, expected: 1, timeoutAt }) })).toMatch(
      /^waiting for 1 of 1 worker to join/,
    )
  })

  it('says nothing once the workers joined, for other statuses, or for local runs', () => {
    expect(runWaiting({ status: 'running', launch: launch(null) })).toBeNull()
    expect(
      runWaiting({ status: 'cancelled', launch: launch({ joined: 0, expected: 2, timeoutAt }) }),
    ).toBeNull()
    expect(runWaiting({ status: 'running', launch: null })).toBeNull()
    expect(runWaiting({ status: 'running', launch: undefined })).toBeNull()
  })
})
