import type { Dataset } from '@codebook/shared'
import { QueryClient } from '@tanstack/react-query'
import { describe, expect, it } from 'vitest'
import { applyDatasetEvent } from './dataset-events.ts'
import { queryKeys } from './queries.ts'

function dataset(id: string, patch: Partial<Dataset> = {}): Dataset {
  return {
    id,
    name: id,
    format: 'hog-text',
    status: 'processing',
    n: null,
    d: null,
    dtype: null,
    sourceBytes: 1000,
    progress: 0,
    error: null,
    createdAt: '2026-11-21T19:00:00.000Z',
    updatedAt: '2026-11-21T19:00:00.000Z',
    ...patch,
  }
}

function clientWith(list: Dataset[]): QueryClient {
  const client = new QueryClient()
  client.setQueryData(queryKeys.datasets, list)
  for (const d of list) client.setQueryData(queryKeys.dataset(d.id), d)
  return client
}

describe('applyDatasetEvent', () => {
  it('moves the progress of the named dataset only, and never backwards', () => {
    const client = clientWith([dataset('a'), dataset('b')])
    expect(
      applyDatasetEvent(client, { datasetId: 'a', type: 'progress', data: { fraction: 0.4, rows: 10 } }),
    ).toBe(true)
    applyDatasetEvent(client, { datasetId: 'a', type: 'progress', data: { fraction: 0.3, rows: 8 } })
    const list = client.getQueryData<Dataset[]>(queryKeys.datasets)!
    expect(list.map((d) => d.progress)).toEqual([0.4, 0])
    expect(client.getQueryData<Dataset>(queryKeys.dataset('a'))?.progress).toBe(0.4)
  })

  it('replaces the record on a state event', () => {
    const client = clientWith([dataset('a')])
    const ready = dataset('a', { status: 'ready', n: 3000, d: 64, dtype: 'float32', progress: 1 })
    applyDatasetEvent(client, { datasetId: 'a', type: 'state', data: ready })
    expect(client.getQueryData<Dataset[]>(queryKeys.datasets)).toEqual([ready])
    expect(client.getQueryData(queryKeys.dataset('a'))).toEqual(ready)
  })

  it('drops the dataset on a deleted event', () => {
    const client = clientWith([dataset('a'), dataset('b')])
    applyDatasetEvent(client, { datasetId: 'a', type: 'deleted', data: {} })
    expect(client.getQueryData<Dataset[]>(queryKeys.datasets)?.map((d) => d.id)).toEqual(['b'])
    expect(client.getQueryData(queryKeys.dataset('a'))).toBeUndefined()
  })

  it('ignores events that do not match the shared schema', () => {
    const client = clientWith([dataset('a')])
    expect(applyDatasetEvent(client, { datasetId: 'a', type: 'exploded', data: {} })).toBe(false)
    expect(applyDatasetEvent(client, { datasetId: 'a', type: 'progress', data: { rows: 3 } })).toBe(false)
    expect(client.getQueryData<Dataset[]>(queryKeys.datasets)).toEqual([dataset('a')])
  })
})
