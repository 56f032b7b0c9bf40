import { describe, expect, it } from 'vitest'
import { canUndo, HISTORY_LIMIT, pushHistory, startHistory, undoHistory } from './history.ts'

describe('undo history', () => {
  it('undoes edits in reverse order back to the start', () => {
    let h = startHistory('a')
    h = pushHistory(h, 'b')
    h = pushHistory(h, 'c')
    expect(h.present).toBe('c')
    h = undoHistory(h)
    expect(h.present).toBe('b')
    h = undoHistory(h)
    expect(h.present).toBe('a')
    expect(canUndo(h)).toBe(false)
    expect(undoHistory(h)).toBe(h)
  })

  it('ignores pushing the present and coalesces edits with the same key', () => {
    let h = startHistory({ v: 1 })
    expect(pushHistory(h, h.present)).toBe(h)
    h = pushHistory(h, { v: 10 }, 'nic:node-1')
    h = pushHistory(h, { v: 100 }, 'nic:node-1')
    h = pushHistory(h, { v: 5 }, 'slots:node-1')
    expect(h.past.map((s) => s.v)).toEqual([1, 100])
    h = undoHistory(h)
    expect(h.present.v).toBe(100)
    // After an undo the same key starts a new step rather than overwriting the restored state.
    h = pushHistory(h, { v: 101 }, 'nic:node-1')
    expect(h.past.map((s) => s.v)).toEqual([1, 100])
  })

  it('keeps at most HISTORY_LIMIT undo steps, dropping the oldest', () => {
    let h = startHistory(0)
    for (let i = 1; i <= HISTORY_LIMIT + 5; i++) h = pushHistory(h, i)
    expect(h.past.length).toBe(HISTORY_LIMIT)
    expect(h.past[0]).toBe(5)
  })
})
