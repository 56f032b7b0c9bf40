import type { CreateEvaluationInput } from '@codebook/shared'
import { DEFAULT_K_LIST, formatKList, parseKList } from './k-list.ts'

/** The launch form as typed: numbers stay strings until validated. */
export interface EvaluationFormValues {
  imageSetId: string
  name: string
  ks: string
  patch: string
  stride: string
  split: string
  seed: string
  /** Images per class to use ('' = all): a quick run on a subset. */
  limitPerClass: string
}

/** Defaults of the launch form: the digits settings (8 × 8 patches, stride 4, 50/50 split). */
export const defaultEvaluationForm: EvaluationFormValues = {
  imageSetId: '',
  name: '',
  ks: DEFAULT_K_LIST,
  patch: '8',
  stride: '4',
  split: '0.5',
  seed: '1',
  limitPerClass: '',
}

/**
 * The form's first values from the page's query string: `?k=64` (or `k=16,64`, as links from the
 * Vocabularies page send) preselects those vocabulary sizes; anything the k list rejects is ignored.
 */
export function evaluationFormFromQuery(search: string): EvaluationFormValues {
  const k = new URLSearchParams(search).get('k')
  const parsed = k === null ? null : parseKList(k)
  return parsed?.ok ? { ...defaultEvaluationForm, ks: formatKList(parsed.ks) } : defaultEvaluationForm
}

/** Field name → message, for the fields that are wrong. */
export type EvaluationFormErrors = Partial<Record<keyof EvaluationFormValues, string>>

// Limits of `CreateEvaluation` in @codebook/shared, checked here so the form says which field is wrong.
const PATCH_MIN = 4
const PATCH_MAX = 256
const SEED_MAX = 2 ** 31 - 1

function wholeIn(text: string, min: number, max: number, label: string): [number | null, string | null] {
  const t = text.trim()
  if (!/^\d+$/.test(t)) return [null, `${label} must be a whole number`]
  const v = Number(t)
  if (v < min || v > max) return [null, `${label} must be in ${min} … ${max.toLocaleString('en-US')}`]
  return [v, null]
}

/**
 * Validates the launch form and returns the `POST /api/evaluations` body or the errors per field.
 * `imageSide` (the smaller side of the set's images, when known) bounds the patch: a patch larger
 * than the image yields no patch at all.
 */
export function validateEvaluationForm(
  values: EvaluationFormValues,
  imageSide: number | null = null,
): { ok: true; input: CreateEvaluationInput } | { ok: false; errors: EvaluationFormErrors } {
  const errors: EvaluationFormErrors = {}
  if (values.imageSetId === '') errors.imageSetId = 'Choose a ready image set'
  const ks = parseKList(values.ks)
  if (!ks.ok) errors.ks = ks.error
  const patchMax = Math.min(PATCH_MAX, imageSide ?? PATCH_MAX)
  const [patch, patchErr] = wholeIn(values.patch, PATCH_MIN, patchMax, 'Patch')
  if (patchErr)
    errors.patch =
      imageSide !== null && patchMax < PATCH_MAX && patchErr.includes('must be in')
        ? `${patchErr} (the images are ${imageSide} px)`
        : patchErr
  const [stride, strideErr] = wholeIn(values.stride, 1, patch ?? PATCH_MAX, 'Stride')
  if (strideErr)
    errors.stride =
      patch !== null && strideErr.includes('must be in') ? 'Stride must be in 1 … patch' : strideErr
  const splitText = values.split.trim()
  const split = Number(splitText)
  if (splitText === '' || !Number.isFinite(split) || split <= 0 || split >= 1)
    errors.split = 'Train share must be a number strictly between 0 and 1'
  const [seed, seedErr] = wholeIn(values.seed, 0, SEED_MAX, 'Seed')
  if (seedErr) errors.seed = seedErr
  let limitPerClass: number | null = null
  if (values.limitPerClass.trim() !== '') {
    const [limit, limitErr] = wholeIn(values.limitPerClass, 2, Number.MAX_SAFE_INTEGER, 'Images per class')
    if (limitErr)
      errors.limitPerClass = limitErr.includes('must be in') ? 'Images per class must be ≥ 2' : limitErr
    limitPerClass = limit
  }
  const name = values.name.trim()
  if (name.length > 200) errors.name = 'Name: at most 200 characters'
  if (!ks.ok || Object.keys(errors).length > 0) return { ok: false, errors }
  const input: CreateEvaluationInput = {
    imageSetId: values.imageSetId,
    k: ks.ks,
    patch: patch as number,
    stride: stride as number,
    split,
    seed: seed as number,
  }
  if (limitPerClass !== null) input.limitPerClass = limitPerClass
  if (name !== '') input.name = name
  return { ok: true, input }
}
