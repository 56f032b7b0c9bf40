import type { Study } from '@codebook/shared'
import { QueryClient } from '@tanstack/react-query'
import { describe, expect, it } from 'vitest'
import { studyKeys } from '../api/study-queries.ts'
import { applyStudyEvent } from './study-events.ts'

function study(id: string, patch: Partial<Study> = {}): Study {
  return {
    id,
    name: id,
    kind: 'markov',
    status: 'running',
    params: { n: 64, runs: 1000, seed: 1 },
    progress: 0,
    results: [],
    error: null,
    createdAt: '2026-11-25T19:00:00.000Z',
    startedAt: '2026-11-25T19:00:01.000Z',
    finishedAt: null,
    ...patch,
  } as Study
}

function cacheWith(...studies: Study[]): QueryClient {
  const client = new QueryClient()
  client.setQueryData(studyKeys.studies, studies)
  for (const s of studies) client.setQueryData(studyKeys.study(s.id), s)
  return client
}

describe('applyStudyEvent', () => {
  it('replaces the record on a state event, in the list and the detail', () => {
    const client = cacheWith(study('a'), study('b'))
    const done = study('a', { status: 'succeeded', progress: 1 })
    expect(applyStudyEvent(client, { studyId: 'a', type: 'state', data: done })).toBe(true)
    expect(client.getQueryData<Study[]>(studyKeys.studies)?.map((s) => s.status)).toEqual([
      'succeeded',
      'running',
    ])
    expect(client.getQueryData<Study>(studyKeys.study('a'))?.status).toBe('succeeded')
  })

  it('moves progress forward only, keeps the message, and leaves an ended study alone', () => {
    const client = cacheWith(
      study('a', { progress: 0.5 }),
      study('b', { status: 'cancelled', progress: 0.2 }),
    )
    applyStudyEvent(client, { studyId: 'a', type: 'progress', data: { fraction: 0.3, message: 'late' } })
    expect(client.getQueryData<Study>(studyKeys.study('a'))?.progress).toBe(0.5)
    applyStudyEvent(client, {
      studyId: 'a',
      type: 'progress',
      data: { fraction: 0.7, message: '7 of 10 runs' },
    })
    expect(client.getQueryData<Study>(studyKeys.study('a'))?.progress).toBe(0.7)
    expect(client.getQueryData(studyKeys.live('a'))).toEqual({ fraction: 0.7, message: '7 of 10 runs' })
    applyStudyEvent(client, { studyId: 'b', type: 'progress', data: { fraction: 0.9, message: 'x' } })
    expect(client.getQueryData<Study[]>(studyKeys.studies)?.[1]?.progress).toBe(0.2)
  })

  it('drops a deleted study and ignores malformed events', () => {
    const client = cacheWith(study('a'), study('b'))
    expect(applyStudyEvent(client, { studyId: 'a', type: 'deleted' })).toBe(true)
    expect(client.getQueryData<Study[]>(studyKeys.studies)?.map((s) => s.id)).toEqual(['b'])
    expect(client.getQueryData(studyKeys.study('a'))).toBeUndefined()
    expect(applyStudyEvent(client, { studyId: 'b', type: 'progress', data: { fraction: 2 } })).toBe(false)
    expect(applyStudyEvent(client, null)).toBe(false)
  })
})
