import type { JobSocketEvent, Study } from '@codebook/shared'
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

/** A study's `job:event` as the socket delivers it. */
function event(id: string, type: string, data: unknown, seq = 1): JobSocketEvent {
  return { kind: 'study', id, seq, type, data }
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
    expect(applyStudyEvent(client, event('a', 'state', done))).toBe(true)
    expect(client.getQueryData<Study[]>(studyKeys.studies)?.map((s) => s.status)).toEqual([
      'succeeded',
      'running',
    ])
    expect(client.getQueryData<Study>(studyKeys.study('a'))?.status).toBe('succeeded')
    expect(client.getQueryState(studyKeys.studies)?.isInvalidated).toBe(false)
  })

  it('refetches the list on the state of a study it does not hold', () => {
    const client = cacheWith(study('a'))
    applyStudyEvent(client, event('new', 'state', study('new', { status: 'queued' })))
    expect(client.getQueryData<Study>(studyKeys.study('new'))?.status).toBe('queued')
    expect(client.getQueryState(studyKeys.studies)?.isInvalidated).toBe(true)
  })

  it('moves progress forward only, keeps the message, and leaves an ended study alone', () => {
    const client = cacheWith(
      study('a', { progress: 0.5 }),
      study('b', { status: 'cancelled', progress: 0.2 }),
    )
    applyStudyEvent(client, event('a', 'progress', { fraction: 0.3, message: 'late' }))
    expect(client.getQueryData<Study>(studyKeys.study('a'))?.progress).toBe(0.5)
    applyStudyEvent(client, event('a', 'progress', { fraction: 0.7, message: '7 of 10 runs' }, 2))
    expect(client.getQueryData<Study>(studyKeys.study('a'))?.progress).toBe(0.7)
    expect(client.getQueryData(studyKeys.live('a'))).toEqual({ fraction: 0.7, message: '7 of 10 runs' })
    applyStudyEvent(client, event('b', 'progress', { fraction: 0.9, message: 'x' }))
    expect(client.getQueryData<Study[]>(studyKeys.studies)?.[1]?.progress).toBe(0.2)
  })

  it("refetches only that study's detail on a result (its rows are stored before they are announced)", () => {
    const client = cacheWith(study('a'), study('b'))
    expect(applyStudyEvent(client, event('a', 'result', []))).toBe(true)
    expect(client.getQueryState(studyKeys.study('a'))?.isInvalidated).toBe(true)
    expect(client.getQueryState(studyKeys.study('b'))?.isInvalidated).toBe(false)
    expect(client.getQueryState(studyKeys.studies)?.isInvalidated).toBe(false)
  })

  it("ignores malformed data, unknown types (no more 'deleted') and another kind's events", () => {
    const client = cacheWith(study('a'), study('b'))
    expect(applyStudyEvent(client, event('b', 'progress', { fraction: 2 }))).toBe(false)
    expect(applyStudyEvent(client, event('a', 'deleted', undefined))).toBe(false)
    expect(applyStudyEvent(client, event('a', 'result', 'rows'))).toBe(false)
    const done = study('a', { status: 'succeeded' })
    expect(applyStudyEvent(client, { ...event('a', 'state', done), kind: 'evaluation' })).toBe(false)
    expect(client.getQueryData<Study[]>(studyKeys.studies)?.map((s) => [s.id, s.status, s.progress])).toEqual(
      [
        ['a', 'running', 0],
        ['b', 'running', 0],
      ],
    )
    expect(client.getQueryState(studyKeys.study('a'))?.isInvalidated).toBe(false)
  })
})
