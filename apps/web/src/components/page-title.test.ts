import { describe, expect, it } from 'vitest'
import { pageTitle } from './page-title.ts'

describe('pageTitle', () => {
  it('names list pages, detail pages and the compare page', () => {
    expect(pageTitle('/datasets')).toBe('Datasets')
    expect(pageTitle('/datasets/abc')).toBe('Dataset')
    expect(pageTitle('/runs')).toBe('Runs')
    expect(pageTitle('/runs/compare')).toBe('Compare runs')
    expect(pageTitle('/runs/1234')).toBe('Run')
    expect(pageTitle('/topology/')).toBe('Topology')
    expect(pageTitle('/topology/t1')).toBe('Topology editor')
    expect(pageTitle('/evaluations/e1')).toBe('Evaluation detail')
    expect(pageTitle('/')).toBe('Datasets')
    expect(pageTitle('/nope')).toBe('Page not found')
  })
})
