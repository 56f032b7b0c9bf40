import { describe, expect, it } from 'vitest'
import { defaultRunForm, validateRunForm } from './run-form.ts'

const form = { ...defaultRunForm, datasetId: 'ds1' }

describe('validateRunForm', () => {
  it('turns the defaults into the request body', () => {
    expect(validateRunForm(form, 1000)).toEqual({
      ok: true,
      input: {
        datasetId: 'ds1',
        k: 64,
        maxIterations: 20,
        workers: 2,
        slots: 1,
        seed: 1,
        tol: 0.0001,
        broadcast: 'chain',
        aggregation: 'three-stage',
        algorithm: 'lloyd',
        kernel: 'onnx',
      },
    })
  })

  it('rejects k above n, k below 1 and non-integers', () => {
    expect(validateRunForm({ ...form, k: '65' }, 64)).toEqual({
      ok: false,
      errors: { k: 'k must be at most n = 64' },
    })
    expect(validateRunForm({ ...form, k: '64' }, 64).ok).toBe(true)
    expect(validateRunForm({ ...form, k: '0' }, 64)).toEqual({
      ok: false,
      errors: { k: 'k must be at least 1' },
    })
    const bad = validateRunForm({ ...form, k: '2.5', maxIterations: '1e3', workers: '' }, null)
    expect(bad.ok ? {} : Object.keys(bad.errors).sort()).toEqual(['k', 'maxIterations', 'workers'])
  })

  it('requires a dataset and a non-negative tol', () => {
    const bad = validateRunForm({ ...form, datasetId: '', tol: '-1' }, null)
    expect(bad.ok ? {} : Object.keys(bad.errors).sort()).toEqual(['datasetId', 'tol'])
    expect(validateRunForm({ ...form, tol: '0' }, null).ok).toBe(true)
  })
})
