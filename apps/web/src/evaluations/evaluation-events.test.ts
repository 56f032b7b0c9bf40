import type { Evaluation, EvaluationKResult, EvaluationProgress, JobSocketEvent } from '@codebook/shared'
import { QueryClient } from '@tanstack/react-query'
import { describe, expect, it } from 'vitest'
import { evaluationKeys } from '../api/evaluation-queries.ts'
import { applyEvaluationEvent, mergeResult } from './evaluation-events.ts'

function evaluation(id: string, patch: Partial<Evaluation> = {}): Evaluation {
  return {
    id,
    name: id,
    status: 'running',
    params: {
      imageSetId: 'digits',
      k: [16, 64, 256],
      patch: 8,
      stride: 4,
      cell: 4,
      bins: 8,
      split: 0.5,
      seed: 1,
      limitPerClass: null,
      vocabularyIds: [],
    },
    imageSetName: 'digits',
    classes: ['0', '1'],
    progress: 0,
    results: [],
    error: null,
    createdAt: '2026-11-21T22:00:00.000Z',
    startedAt: '2026-11-21T22:00:01.000Z',
    finishedAt: null,
    ...patch,
  }
}

function result(k: number, accuracy: number): EvaluationKResult {
  return {
    k,
    accuracy,
    perClass: [accuracy, accuracy],
    confusion: [
      [5, 1],
      [1, 5],
    ],
    misclassified: [{ index: 3, trueLabel: 0, predicted: 1 }],
    trainImages: 12,
    testImages: 12,
    seconds: { vocabulary: 1, encode: 0.1, train: 0.05 },
  }
}

/** An evaluation's `job:event` as the socket delivers it. */
function event(id: string, type: string, data: unknown, seq = 1): JobSocketEvent {
  return { kind: 'evaluation', id, seq, type, data }
}

function clientWith(list: Evaluation[]): QueryClient {
  const client = new QueryClient()
  client.setQueryData(evaluationKeys.evaluations, list)
  for (const e of list) client.setQueryData(evaluationKeys.evaluation(e.id), e)
  return client
}

describe('mergeResult', () => {
  it('adds each k once, in the order of params.k', () => {
    let e = evaluation('a')
    e = mergeResult(e, result(256, 0.87))
    e = mergeResult(e, result(16, 0.63))
    e = mergeResult(e, result(16, 0.99))
    expect(e.results.map((r) => [r.k, r.accuracy])).toEqual([
      [16, 0.63],
      [256, 0.87],
    ])
  })

  it('keeps a stored vocabulary of the same k as a learned one apart, after the learned k', () => {
    let e = evaluation('a', { params: { ...evaluation('a').params, k: [16], vocabularyIds: ['v2', 'v1'] } })
    e = mergeResult(e, { ...result(16, 0.7), vocabularyId: 'v1' })
    e = mergeResult(e, result(16, 0.6))
    e = mergeResult(e, { ...result(16, 0.9), vocabularyId: 'v2' })
    e = mergeResult(e, { ...result(16, 0.1), vocabularyId: 'v1' })
    expect(e.results.map((r) => [r.vocabularyId ?? null, r.accuracy])).toEqual([
      [null, 0.6],
      ['v2', 0.9],
      ['v1', 0.7],
    ])
  })
})

describe('applyEvaluationEvent', () => {
  it('keeps the phase text and moves progress forward only, for the named evaluation', () => {
    const client = clientWith([evaluation('a'), evaluation('b')])
    const p1: EvaluationProgress = { phase: 'kmeans', k: 16, fraction: 0.4, message: 'iteration 2' }
    expect(applyEvaluationEvent(client, event('a', 'progress', p1))).toBe(true)
    applyEvaluationEvent(
      client,
      event('a', 'progress', { phase: 'kmeans', k: 16, fraction: 0.3, message: 'late' }, 2),
    )
    const list = client.getQueryData<Evaluation[]>(evaluationKeys.evaluations)!
    expect(list.map((e) => e.progress)).toEqual([0.4, 0])
    expect(client.getQueryData<Evaluation>(evaluationKeys.evaluation('a'))?.progress).toBe(0.4)
    expect(client.getQueryData(evaluationKeys.live('a'))).toMatchObject({ message: 'late' })
  })

  it('appends a result to list and detail', () => {
    const client = clientWith([evaluation('a')])
    expect(applyEvaluationEvent(client, event('a', 'result', result(16, 0.63)))).toBe(true)
    expect(client.getQueryData<Evaluation>(evaluationKeys.evaluation('a'))?.results.map((r) => r.k)).toEqual([
      16,
    ])
    expect(client.getQueryData<Evaluation[]>(evaluationKeys.evaluations)?.[0]?.results).toHaveLength(1)
  })

  it('replaces the record on a state event, and refetches the list for an unknown one', () => {
    const client = clientWith([evaluation('a')])
    const done = evaluation('a', { status: 'succeeded', progress: 1, results: [result(16, 0.6)] })
    applyEvaluationEvent(client, event('a', 'state', done))
    expect(client.getQueryData(evaluationKeys.evaluation('a'))).toEqual(done)
    expect(client.getQueryData(evaluationKeys.evaluations)).toEqual([done])
    expect(client.getQueryState(evaluationKeys.evaluations)?.isInvalidated).toBe(false)
    applyEvaluationEvent(client, event('z', 'state', evaluation('z')))
    expect(client.getQueryState(evaluationKeys.evaluations)?.isInvalidated).toBe(true)
  })

  it("ignores malformed data, unknown types and another kind's events", () => {
    const before = evaluation('a', { status: 'succeeded', progress: 1 })
    const client = clientWith([before])
    expect(applyEvaluationEvent(client, event('a', 'progress', { fraction: 2 }))).toBe(false)
    expect(applyEvaluationEvent(client, event('a', 'state', { id: 'a' }))).toBe(false)
    // Types of other kinds, and keys every object has, are not evaluation event types.
    expect(applyEvaluationEvent(client, event('a', 'iteration', {}))).toBe(false)
    expect(applyEvaluationEvent(client, event('a', 'constructor', {}))).toBe(false)
    const running = evaluation('a')
    expect(applyEvaluationEvent(client, { ...event('a', 'state', running), kind: 'study' })).toBe(false)
    expect(client.getQueryData(evaluationKeys.evaluation('a'))).toEqual(before)
    expect(client.getQueryData(evaluationKeys.evaluations)).toEqual([before])
  })

  it('leaves an ended evaluation at its progress', () => {
    const client = clientWith([evaluation('a', { status: 'succeeded', progress: 1 })])
    expect(
      applyEvaluationEvent(client, event('a', 'progress', { phase: 'test', fraction: 0.2, message: '' })),
    ).toBe(true)
    expect(client.getQueryData<Evaluation>(evaluationKeys.evaluation('a'))?.progress).toBe(1)
  })
})
