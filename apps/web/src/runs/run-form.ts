import type { CreateRunInput } from '@codebook/shared'

/** The new-run form as typed: numbers stay strings until validated. */
export interface RunFormValues {
  datasetId: string
  k: string
  maxIterations: string
  workers: string
  slots: string
  tol: string
  seed: string
  broadcast: 'simple' | 'mst' | 'bucket' | 'chain'
  aggregation: 'direct' | 'three-stage' | 'ring' | 'allreduce'
  algorithm: 'lloyd' | 'hamerly' | 'yinyang' | 'auto'
  kernel: string
}

/** Defaults of the form (the dataset is chosen once the list arrives). */
export const defaultRunForm: RunFormValues = {
  datasetId: '',
  k: '64',
  maxIterations: '20',
  workers: '2',
  slots: '1',
  tol: '1e-4',
  seed: '1',
  broadcast: 'chain',
  aggregation: 'three-stage',
  algorithm: 'lloyd',
  kernel: 'onnx',
}

/** Field name → message, for the fields that are wrong. */
export type RunFormErrors = Partial<Record<keyof RunFormValues, string>>

function integerIn(text: string, min: number, max: number, name: string): [number | null, string | null] {
  const t = text.trim()
  if (!/^\d+$/.test(t)) return [null, `${name} must be a whole number`]
  const v = Number(t)
  if (v < min) return [null, `${name} must be at least ${min}`]
  if (v > max) return [null, `${name} must be at most ${max.toLocaleString('en-US')}`]
  return [v, null]
}

/**
 * Validates the form against the chosen dataset's n (null: unknown) and returns either the
 * request body or the errors per field. Limits mirror the server's `CreateRun` schema.
 */
export function validateRunForm(
  values: RunFormValues,
  datasetN: number | null,
): { ok: true; input: CreateRunInput } | { ok: false; errors: RunFormErrors } {
  const errors: RunFormErrors = {}
  if (values.datasetId === '') errors.datasetId = 'Choose a ready dataset'
  const [k, kErr] = integerIn(values.k, 1, datasetN ?? Number.MAX_SAFE_INTEGER, 'k')
  if (kErr) errors.k = datasetN !== null && /at most/.test(kErr) ? `k must be at most n = ${datasetN}` : kErr
  const [maxIterations, itErr] = integerIn(values.maxIterations, 1, 100_000, 'Iterations')
  if (itErr) errors.maxIterations = itErr
  const [workers, wErr] = integerIn(values.workers, 1, 256, 'Workers')
  if (wErr) errors.workers = wErr
  const [slots, sErr] = integerIn(values.slots, 1, 64, 'Slots')
  if (sErr) errors.slots = sErr
  const [seed, seedErr] = integerIn(values.seed, 0, Number.MAX_SAFE_INTEGER, 'Seed')
  if (seedErr) errors.seed = seedErr
  const tol = Number(values.tol.trim())
  if (values.tol.trim() === '' || !Number.isFinite(tol) || tol < 0) errors.tol = 'tol must be a number ≥ 0'
  if (!/^[a-z0-9-]+$/.test(values.kernel)) errors.kernel = 'Kernel: lowercase letters, digits, dashes'
  if (Object.keys(errors).length > 0) return { ok: false, errors }
  return {
    ok: true,
    input: {
      datasetId: values.datasetId,
      k: k as number,
      maxIterations: maxIterations as number,
      workers: workers as number,
      slots: slots as number,
      seed: seed as number,
      tol,
      broadcast: values.broadcast,
      aggregation: values.aggregation,
      algorithm: values.algorithm,
      kernel: values.kernel,
    },
  }
}
