import { CreateRun } from '@codebook/shared'
import { describe, expect, it } from 'vitest'
import {
  compareHref,
  datasetMismatchWarning,
  diffParams,
  parseCompareIds,
  reduceMethod,
} from './run-compare.ts'

describe('compare links', () => {
  it('round-trips ids through the query string, dropping blanks and repeats', () => {
    const ids = ['a1', 'b 2', 'c,3'.replace(',', '-')]
    const href = compareHref(ids)
    expect(parseCompareIds(href.slice(href.indexOf('?')))).toEqual(ids)
    expect(parseCompareIds('?ids=x,,y,x, z')).toEqual(['x', 'y', 'z'])
    expect(parseCompareIds('')).toEqual([])
  })
})

describe('datasetMismatchWarning', () => {
  const names = new Map([['d1', 'digits']])
  it('is null when every run used the same dataset', () => {
    expect(
      datasetMismatchWarning(
        [
          { id: 'aaaaaaaa1', datasetId: 'd1' },
          { id: 'bbbbbbbb2', datasetId: 'd1' },
        ],
        names,
      ),
    ).toBeNull()
  })

  it('groups the runs by dataset, naming a deleted one by its id', () => {
    expect(
      datasetMismatchWarning(
        [
          { id: 'aaaaaaaa1', datasetId: 'd1' },
          { id: 'bbbbbbbb2', datasetId: 'gone-dataset' },
          { id: 'cccccccc3', datasetId: 'd1' },
        ],
        names,
      ),
    ).toBe(
      'These runs used 2 different datasets, so their inertias do not compare — digits: aaaaaaaa, cccccccc; gone-dat (deleted): bbbbbbbb.',
    )
  })
})

describe('reduceMethod', () => {
  const params = CreateRun.parse({ datasetId: 'd1', k: 4, maxIterations: 2, workers: 2, aggregation: 'ring' })
  it('names the aggregation for the default regroup (and for runs stored without a reduction), else the tree', () => {
    expect(reduceMethod(params)).toBe('ring')
    expect(reduceMethod({ ...params, reduction: undefined as never })).toBe('ring')
    expect(reduceMethod({ ...params, reduction: 'tree-dyn' })).toBe('tree-dyn')
  })
})

describe('diffParams', () => {
  it('lists the parameters that differ, a value per run, and the ones shared', () => {
    const a = { datasetId: 'd1', params: { k: 4, seed: 1, hnsw: { expansion: 8 } } }
    const b = { datasetId: 'd1', params: { k: 8, seed: 1 } }
    const { differ, same } = diffParams([a, b] as never)
    expect(differ).toEqual([
      { name: 'hnsw', values: ['{"expansion":8}', '—'] },
      { name: 'k', values: ['4', '8'] },
    ])
    expect(same).toEqual([
      { name: 'datasetId', value: 'd1' },
      { name: 'seed', value: '1' },
    ])
  })
})
