import { UsageError } from '../errors.ts'

/** The assignment algorithm of every map task: brute-force Lloyd or an exact bounded one. */
export type KmeansAlgorithm = 'lloyd' | 'hamerly' | 'yinyang'

/** What `--algorithm` accepts: a {@link KmeansAlgorithm} or `auto` (see {@link chooseAlgorithm}). */
export type KmeansAlgorithmChoice = KmeansAlgorithm | 'auto'

/** Every accepted `--algorithm` value, for option parsing. */
export const kmeansAlgorithmChoices: readonly KmeansAlgorithmChoice[] = [
  'lloyd',
  'hamerly',
  'yinyang',
  'auto',
]

/** Below this k the bounds' bookkeeping costs more than the distances they save. */
export const AUTO_HAMERLY_MIN_K = 64
/** From this k on Yinyang's group bounds prune far more than Hamerly's single lower bound. */
export const AUTO_YINYANG_MIN_K = 2000
/** Yinyang keeps n·t float64 bounds (t ≈ k/10); above this many per worker `auto` stays with Hamerly (1 GiB). */
export const AUTO_MAX_YINYANG_BOUNDS = 2 ** 27

/**
 * Resolves `auto` for k centroids and at most `pointsPerWorker` vectors in one worker:
 * - k < 64: `lloyd` (one dense pass is cheap; bounds would prune little and cost TS passes);
 * - k < 2000: `hamerly` (O(n) bounds);
 * - k ≥ 2000: `yinyang`, unless its n × t group bounds (t = round(k/10)) would exceed 2²⁷
 *   float64 values (1 GiB) in one worker, in which case `hamerly`.
 * Any other choice is returned as is.
 */
export function chooseAlgorithm(
  choice: KmeansAlgorithmChoice,
  k: number,
  pointsPerWorker: number,
): KmeansAlgorithm {
  if (!(kmeansAlgorithmChoices as readonly string[]).includes(choice))
    throw new UsageError(
      'KMEANS_BAD_ALGORITHM',
      `algorithm "${choice}" is not one of ${kmeansAlgorithmChoices.join(', ')}`,
    )
  if (choice !== 'auto') return choice
  if (k < AUTO_HAMERLY_MIN_K) return 'lloyd'
  if (k < AUTO_YINYANG_MIN_K) return 'hamerly'
  const groups = Math.max(1, Math.round(k / 10))
  return pointsPerWorker * groups > AUTO_MAX_YINYANG_BOUNDS ? 'hamerly' : 'yinyang'
}
