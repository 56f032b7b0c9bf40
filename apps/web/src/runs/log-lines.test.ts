import { describe, expect, it } from 'vitest'
import { logLinePositions } from './log-lines.ts'

describe('logLinePositions', () => {
  it('keeps the whole-log position of every kept line, within count', () => {
    const lines = ['info', 'warn', 'info', 'error', 'warn']
    expect(logLinePositions(lines, 5, (l) => l !== 'info')).toEqual([1, 3, 4])
    expect(logLinePositions(lines, 4, (l) => l !== 'info')).toEqual([1, 3])
    expect(logLinePositions(lines, 9, () => true)).toEqual([0, 1, 2, 3, 4])
  })
})
