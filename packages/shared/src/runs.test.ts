import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { CreateRun, Run, RunParams } from './runs.ts'

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

describe('run launchers', () => {
  const base = { datasetId: 'd1', k: 4, maxIterations: 5, workers: 2 }

  it('reads a run stored before launchers existed as local', () => {
    const { launcher: _, ...old } = CreateRun.parse(base)
    expect(RunParams.parse(old).launcher).toBe('local')
  })

  it('takes Slurm time limits as sbatch does and refuses others', () => {
    for (const timeLimit of ['30', '2:00:00', '1-12', '1-12:30'])
      expect(CreateRun.parse({ ...base, launcher: 'slurm', slurm: { timeLimit } }).slurm?.timeLimit).toBe(
        timeLimit,
      )
    for (const timeLimit of ['1h', '', '2:00:00:00', '; rm -rf /'])
      expect(CreateRun.safeParse({ ...base, launcher: 'slurm', slurm: { timeLimit } }).success).toBe(false)
    expect(CreateRun.safeParse({ ...base, launcher: 'slurm', slurm: { partition: 'a b' } }).success).toBe(
      false,
    )
    expect(CreateRun.safeParse({ ...base, launcher: 'ssh' }).success).toBe(false)
  })
})
