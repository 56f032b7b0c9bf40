import { describe, expect, it } from 'vitest'
import { PAGE_SIZE, pageOf } from './pager.tsx'

describe('pageOf', () => {
  const rows = Array.from({ length: 2 * PAGE_SIZE + 3 }, (_, i) => i)
  it('cuts rows into pages of PAGE_SIZE and clamps the page', () => {
    expect(pageOf(rows, 0)).toMatchObject({ page: 0, pages: 3 })
    expect(pageOf(rows, 2).rows).toEqual([2 * PAGE_SIZE, 2 * PAGE_SIZE + 1, 2 * PAGE_SIZE + 2])
    expect(pageOf(rows, 9).page).toBe(2)
    expect(pageOf(rows, -1).rows[0]).toBe(0)
    // Every row appears on exactly one page.
    const all = [0, 1, 2].flatMap((p) => pageOf(rows, p).rows)
    expect(all).toEqual(rows)
    expect(pageOf([], 0)).toEqual({ rows: [], page: 0, pages: 1 })
  })
})
