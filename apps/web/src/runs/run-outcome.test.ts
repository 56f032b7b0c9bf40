import { describe, expect, it } from 'vitest'
import { runStopReason } from './run-outcome.ts'

const params = { maxIterations: 20 } as Parameters<typeof runStopReason>[0]['params']

describe('runStopReason', () => {
  it('says converged for a succeeded run that stopped before maxIterations', () => {
    expect(runStopReason({ status: 'succeeded', iteration: 7, params })).toBe('converged')
    expect(runStopReason({ status: 'succeeded', iteration: 20, params })).toBe('max-iterations')
  })

  it('says nothing for a run that did not succeed', () => {
    for (const status of ['queued', 'running', 'failed', 'cancelled', 'interrupted'] as const)
      expect(runStopReason({ status, iteration: 3, params })).toBeNull()
  })
})
