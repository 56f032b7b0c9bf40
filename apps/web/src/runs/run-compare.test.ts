import { describe, expect, it } from 'vitest'
import { compareHref, parseCompareIds } from './run-compare.ts'

describe('compare links', () => {
  it('round-trips ids through the query string, dropping blanks and repeats', () => {
    const ids = ['a1', 'b 2', 'c,3'.replace(',', '-')]
    const href = compareHref(ids)
    expect(parseCompareIds(href.slice(href.indexOf('?')))).toEqual(ids)
    expect(parseCompareIds('?ids=x,,y,x, z')).toEqual(['x', 'y', 'z'])
    expect(parseCompareIds('')).toEqual([])
  })
})
