import { runAlgorithms, runAssignments } from '@codebook/shared'
import { UsageError } from '../errors.ts'

/** The assignment algorithm of every map task: brute-force Lloyd or an exact bounded one. */
export type KmeansAlgorithm = 'lloyd' | 'hamerly' | 'yinyang'

/** How map tasks find each point's centroid: exactly (brute force or bounds) or through an HNSW index. */
export type KmeansAssignment = (typeof runAssignments)[number]

/** Every accepted `--assignment` value. */
export const kmeansAssignments: readonly KmeansAssignment[] = runAssignments

/** What `--algorithm` accepts: a {@link KmeansAlgorithm} or `auto` (see {@link chooseAlgorithm}). */
export type KmeansAlgorithmChoice = (typeof runAlgorithms)[number]

/** Every accepted `--algorithm` value, for option parsing. */
export const kmeansAlgorithmChoices: readonly KmeansAlgorithmChoice[] = runAlgorithms

/** Below this k the bounds' bookkeeping costs more than the distances they save. */
export const AUTO_HAMERLY_MIN_K = 64

/**
 * Resolves `auto` for k centroids (Hamerly's memory is O(n) whatever k):
 * - k < 64: `lloyd` (one dense pass is cheap; bounds would prune little and cost TS passes);
 * - otherwise `hamerly` (O(n) bounds; with a dense kernel its moved-set iterations re-measure
 *   the most-drifted centroids densely, and from k = 4,096 its large re-scans go through
 *   centroid neighbourhoods, see `accel/neighbour-rescan.ts`). Measured on clustered data (blobs,
 *   d = 128, 2 threads, CPU time of 10–12 assignments): k = 1,000, n = 100k: hamerly 4.2 s,
 *   yinyang 8.1–9.2 s, lloyd 7.1 s; k = 2,500, n = 50k: hamerly 3.6 s, yinyang 9.8 s, lloyd 6.8 s.
 *   Large k (issue 22, 8 assignments): k = 5,000, n = 50k: hamerly 2.5 s, yinyang (t = 31 … 500)
 *   3.8–5.2 s; k = 20,000, n = 200k: yinyang (t = 2,000, 3.2 GB of bounds) 30 s for its first
 *   assignment and 2–4 s for each later one, against hamerly's 15 s and ≤ 0.3 s once settled.
 * Any other choice is returned as is.
 */
export function chooseAlgorithm(choice: KmeansAlgorithmChoice, k: number): KmeansAlgorithm {
  if (!(kmeansAlgorithmChoices as readonly string[]).includes(choice))
    throw new UsageError(
      'KMEANS_BAD_ALGORITHM',
      `algorithm "${choice}" is not one of ${kmeansAlgorithmChoices.join(', ')}`,
    )
  if (choice !== 'auto') return choice
  return k < AUTO_HAMERLY_MIN_K ? 'lloyd' : 'hamerly'
}
