import { type CreateEvaluationInput, MAX_EVALUATION_VOCABULARIES } from '@codebook/shared'
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
  /** Stored vocabularies to evaluate as they are (`?vocabulary=ID`), besides the k list. */
  vocabularyIds: string[]
}

/** What the form knows of a selected stored vocabulary (from `GET /api/vocabularies`). */
export interface SelectedVocabulary {
  id: string
  k: number
  d: number
}

/** Defaults of the launch form: the issue's digits settings (8 × 8 patches, stride 4, 50/50 split). */
export const defaultEvaluationForm: EvaluationFormValues = {
  imageSetId: '',
  name: '',
  ks: DEFAULT_K_LIST,
  patch: '8',
  stride: '4',
  split: '0.5',
  seed: '1',
  limitPerClass: '',
  vocabularyIds: [],
}

/**
 * The form's first values from the page's query string: `?k=64` (or `k=16,64`) preselects those
 * vocabulary sizes; `?vocabulary=ID` (repeated or a comma list, as the Vocabularies page's
 * "Evaluate" sends) selects stored vocabularies, and then the k list starts empty unless `k` is
 * given too. Anything the k list rejects is ignored; ids are kept distinct, at most
 * `MAX_EVALUATION_VOCABULARIES`.
 */
export function evaluationFormFromQuery(search: string): EvaluationFormValues {
  const query = new URLSearchParams(search)
  const k = query.get('k')
  const parsed = k === null ? null : parseKList(k)
  const vocabularyIds = [
    ...new Set(
      query
        .getAll('vocabulary')
        .flatMap((v) => v.split(','))
        .map((v) => v.trim())
        .filter((v) => v !== ''),
    ),
  ].slice(0, MAX_EVALUATION_VOCABULARIES)
  const ks = parsed?.ok ? formatKList(parsed.ks) : vocabularyIds.length > 0 ? '' : defaultEvaluationForm.ks
  return { ...defaultEvaluationForm, ks, vocabularyIds }
}

/**
 * Length of the dense HOG descriptor the server computes for these parameters (the runtime's
 * `hogLength`: c = patch / cell cells a side, blocks of b × b cells, (c − b + 1)² · b² · bins),
 * or null when the patch is not a whole number of cells (the server then answers `BAD_HOG_PARAMS`).
 */
export function hogDescriptorLength(patch: number, cell = 4, bins = 8, blockCells = 2): number | null {
  if (!Number.isInteger(patch) || patch % cell !== 0) return null
  const c = patch / cell
  if (c < blockCells) return null
  return (c - blockCells + 1) ** 2 * blockCells ** 2 * bins
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
  vocabularies: readonly SelectedVocabulary[] = [],
): { ok: true; input: CreateEvaluationInput } | { ok: false; errors: EvaluationFormErrors } {
  const errors: EvaluationFormErrors = {}
  if (values.imageSetId === '') errors.imageSetId = 'Choose a ready image set'
  // With stored vocabularies selected, the k list may be empty.
  const ks =
    values.vocabularyIds.length > 0 && values.ks.trim() === ''
      ? { ok: true as const, ks: [] }
      : parseKList(values.ks)
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
  const hogD = patch === null ? null : hogDescriptorLength(patch)
  if (values.vocabularyIds.length > MAX_EVALUATION_VOCABULARIES)
    errors.vocabularyIds = `At most ${MAX_EVALUATION_VOCABULARIES} stored vocabularies`
  else if (hogD !== null) {
    const wrong = vocabularies.filter((v) => values.vocabularyIds.includes(v.id) && v.d !== hogD)
    if (wrong.length > 0)
      errors.vocabularyIds = `${wrong.map((v) => `Vocabulary ${v.id} has d = ${v.d}`).join('; ')}, but patch ${patch} gives HOG vectors of d = ${hogD}`
  }
  const name = values.name.trim()
  if (name.length > 200) errors.name = 'Name: at most 200 characters'
  if (!ks.ok || Object.keys(errors).length > 0) return { ok: false, errors }
  const input: CreateEvaluationInput = {
    imageSetId: values.imageSetId,
    k: ks.ks,
    ...(values.vocabularyIds.length > 0 ? { vocabularyIds: values.vocabularyIds } : {}),
    patch: patch as number,
    stride: stride as number,
    split,
    seed: seed as number,
  }
  if (limitPerClass !== null) input.limitPerClass = limitPerClass
  if (name !== '') input.name = name
  return { ok: true, input }
}
