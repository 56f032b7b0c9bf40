import { CreateEvaluation } from '@codebook/shared'
import { describe, expect, it } from 'vitest'
import {
  defaultEvaluationForm,
  type EvaluationFormValues,
  evaluationFormFromQuery,
  hogDescriptorLength,
  validateEvaluationForm,
} from './evaluation-form.ts'

const base: EvaluationFormValues = { ...defaultEvaluationForm, imageSetId: 'set-1' }

describe('validateEvaluationForm', () => {
  it('turns the defaults into a body the shared schema accepts unchanged', () => {
    const r = validateEvaluationForm(base, 20)
    expect(r).toEqual({
      ok: true,
      input: { imageSetId: 'set-1', k: [16, 64, 256, 1024], patch: 8, stride: 4, split: 0.5, seed: 1 },
    })
    if (r.ok) expect(CreateEvaluation.parse(r.input)).toMatchObject(r.input)
  })

  it('passes the optional name and quick-run limit', () => {
    const r = validateEvaluationForm({ ...base, name: ' quick ', limitPerClass: '20', ks: '8,16' })
    expect(r.ok && r.input).toMatchObject({ name: 'quick', limitPerClass: 20, k: [8, 16] })
  })

  it('names every wrong field', () => {
    const r = validateEvaluationForm({
      imageSetId: '',
      name: 'x'.repeat(201),
      ks: '16,16',
      patch: '3',
      stride: '0',
      split: '1',
      seed: '-1',
      limitPerClass: '1',
      vocabularyIds: [],
    })
    expect(r.ok).toBe(false)
    if (!r.ok)
      expect(Object.keys(r.errors).sort()).toEqual(
        ['imageSetId', 'ks', 'limitPerClass', 'name', 'patch', 'seed', 'split', 'stride'].sort(),
      )
  })

  it('bounds the patch by the image side and the stride by the patch', () => {
    const big = validateEvaluationForm({ ...base, patch: '24' }, 20)
    expect(!big.ok && big.errors.patch).toBe('Patch must be in 4 … 20 (the images are 20 px)')
    const stride = validateEvaluationForm({ ...base, patch: '8', stride: '9' }, 20)
    expect(!stride.ok && stride.errors.stride).toBe('Stride must be in 1 … patch')
    expect(validateEvaluationForm({ ...base, patch: '20', stride: '20' }, 20).ok).toBe(true)
  })

  it.each(['0', '0.0', '1', '1.5', 'half', ''])('rejects the train share %j', (split) => {
    const r = validateEvaluationForm({ ...base, split })
    expect(!r.ok && r.errors.split).toContain('strictly between 0 and 1')
  })

  it('every accepted body passes the server schema (a grid of values)', () => {
    for (const patch of ['4', '8', '16'])
      for (const stride of ['1', '4', '8'])
        for (const split of ['0.1', '0.5', '0.9']) {
          const r = validateEvaluationForm({ ...base, patch, stride, split })
          const expectedOk = Number(stride) <= Number(patch)
          expect(r.ok).toBe(expectedOk)
          if (r.ok) expect(CreateEvaluation.safeParse(r.input).success).toBe(true)
        }
  })
})

describe('evaluationFormFromQuery', () => {
  it('preselects the vocabulary sizes of ?k= and keeps every other default', () => {
    expect(evaluationFormFromQuery('?k=64')).toEqual({ ...defaultEvaluationForm, ks: '64' })
    expect(evaluationFormFromQuery('k=256,16')).toEqual({ ...defaultEvaluationForm, ks: '16, 256' })
  })

  it('ignores a missing or invalid k', () => {
    for (const search of ['', '?seed=3', '?k=', '?k=0', '?k=abc', '?k=1.5'])
      expect(evaluationFormFromQuery(search)).toEqual(defaultEvaluationForm)
  })
})

describe('?vocabulary= and stored vocabularies', () => {
  it('selects the vocabulary (repeated or comma list, distinct, at most 8) and starts with no k unless ?k= is given', () => {
    expect(evaluationFormFromQuery('?vocabulary=v1')).toEqual({
      ...defaultEvaluationForm,
      ks: '',
      vocabularyIds: ['v1'],
    })
    expect(evaluationFormFromQuery('?vocabulary=v1,v2&vocabulary=v1&vocabulary=')).toMatchObject({
      vocabularyIds: ['v1', 'v2'],
    })
    expect(evaluationFormFromQuery('?vocabulary=v1&k=64')).toMatchObject({ ks: '64', vocabularyIds: ['v1'] })
    const many = Array.from({ length: 12 }, (_, i) => `v${i}`).join(',')
    expect(evaluationFormFromQuery(`?vocabulary=${many}`).vocabularyIds).toHaveLength(8)
  })

  it('submits vocabularyIds with an empty k list, valid for the shared schema', () => {
    const values = { ...evaluationFormFromQuery('?vocabulary=v1'), imageSetId: 'set' }
    const r = validateEvaluationForm(values, 20, [{ id: 'v1', k: 64, d: 32 }])
    expect(r.ok).toBe(true)
    if (!r.ok) return
    expect(r.input).toMatchObject({ k: [], vocabularyIds: ['v1'] })
    expect(CreateEvaluation.safeParse(r.input).success).toBe(true)
    // With no vocabulary and no k, the k list is wrong.
    expect(validateEvaluationForm({ ...values, vocabularyIds: [] }).ok).toBe(false)
  })

  it('says before submit when the vocabulary d is not the HOG length of the patch', () => {
    expect(hogDescriptorLength(8)).toBe(32)
    expect(hogDescriptorLength(16)).toBe(288)
    expect(hogDescriptorLength(10)).toBeNull() // not whole cells: the server's BAD_HOG_PARAMS
    const values = { ...evaluationFormFromQuery('?vocabulary=v1'), imageSetId: 'set', patch: '16' }
    const r = validateEvaluationForm(values, 20, [{ id: 'v1', k: 64, d: 32 }])
    expect(r.ok).toBe(false)
    if (r.ok) return
    expect(r.errors.vocabularyIds).toBe('Vocabulary v1 has d = 32, but patch 16 gives HOG vectors of d = 288')
  })
})
