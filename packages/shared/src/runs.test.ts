import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { CreateRun, Run } from './runs.ts'

describe('Run', () => {
  const run = {
    id: 'r1',
    datasetId: 'd1',
    status: 'queued',
    params: CreateRun.parse({ datasetId: 'd1', k: 4, maxIterations: 5, workers: 1, aggregation: 'local' }),
    iteration: 0,
    inertia: null,
    createdAt: '2026-01-01T00:00:00.000Z',
  } as const

  it('reads the old aggregation name on input', () => {
    expect(run.params.aggregation).toBe('three-stage')
  })

  it('encodes as a response (the server serialises through the schema; a one-way transform cannot)', () => {
    expect(z.encode(Run, run).params.aggregation).toBe('three-stage')
  })
})
