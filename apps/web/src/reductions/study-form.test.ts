import { STUDY_LIMITS } from '@codebook/shared'
import { describe, expect, it } from 'vitest'
import { defaultStudyForm, numberList, validateStudyForm } from './study-form.ts'

describe('validateStudyForm', () => {
  it('turns the default form into the request the server accepts', () => {
    const result = validateStudyForm(defaultStudyForm)
    expect(result).toEqual({
      ok: true,
      input: { kind: 'reductions', n: 64, runs: 10000, seed: 1, cv: [0.01, 0.1, 0.3, 1, 3, 10], muC: [0] },
    })
  })

  it('names the field of each bound the server enforces', () => {
    const bad = validateStudyForm({
      ...defaultStudyForm,
      n: String(STUDY_LIMITS.maxProcesses + 1),
      runs: String(STUDY_LIMITS.maxRuns + 1),
      cv: '0.1, x',
      muC: '-1',
    })
    expect(bad.ok).toBe(false)
    if (bad.ok) return
    expect(Object.keys(bad.errors).sort()).toEqual(['cv', 'muC', 'n', 'runs'])
    const grid = validateStudyForm({ ...defaultStudyForm, kind: 'grid', runs: '10001', seed: '1.5' })
    expect(grid.ok ? [] : Object.keys(grid.errors).sort()).toEqual(['runs', 'seed'])
  })

  it('sends neither CV nor μc lists for the grid and Markov studies', () => {
    const markov = validateStudyForm({ ...defaultStudyForm, kind: 'markov', cv: 'ignored', runs: '5000' })
    expect(markov).toEqual({ ok: true, input: { kind: 'markov', n: 64, runs: 5000, seed: 1 } })
  })

  it('reads comma lists, refusing a non-number', () => {
    expect(numberList(' 0.01, 1 ,10,')).toEqual([0.01, 1, 10])
    expect(numberList('1, two')).toBeUndefined()
  })
})
