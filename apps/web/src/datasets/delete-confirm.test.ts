import type { Run } from '@codebook/shared'
import { describe, expect, it } from 'vitest'
import { datasetDeleteQuestion } from './delete-confirm.ts'

function run(id: string, datasetId: string, status: Run['status']): Run {
  return { id, datasetId, status } as Run
}

const dataset = { id: 'ds-1', name: 'digits' }

describe('datasetDeleteQuestion', () => {
  it('asks plainly when no run used the dataset', () => {
    expect(datasetDeleteQuestion(dataset, [run('r1', 'other', 'succeeded')])).toBe(
      'Delete dataset “digits” and its files? This cannot be undone.',
    )
  })

  it('names the runs that used it, and warns about the active ones', () => {
    const q = datasetDeleteQuestion(dataset, [
      run('aaaaaaaa-1', 'ds-1', 'succeeded'),
      run('bbbbbbbb-2', 'other', 'succeeded'),
      run('cccccccc-3', 'ds-1', 'running'),
    ])
    expect(q).toContain('2 runs use it: aaaaaaaa (succeeded), cccccccc (running).')
    expect(q).toContain('show the dataset as deleted')
    expect(q).toContain('1 of them is still queued or running and will fail.')
    expect(q).not.toContain('bbbbbbbb')
  })

  it('names five runs and counts the rest', () => {
    const runs = Array.from({ length: 7 }, (_, i) => run(`run${i}xxxx-id`, 'ds-1', 'failed'))
    expect(datasetDeleteQuestion(dataset, runs)).toContain('7 runs use it: run0xxxx (failed), ')
    expect(datasetDeleteQuestion(dataset, runs)).toContain('run4xxxx (failed) and 2 more.')
  })
})
