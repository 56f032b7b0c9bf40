import type { EvaluationProgress as RuntimeProgress } from '@codebook/runtime/evaluation'
import type { EvaluationPhase, EvaluationProgress } from '@codebook/shared'

/** Share of the whole evaluation spent loading images and computing dense HOG (measured on digits: ~10%). */
const HOG_SHARE = 0.1

/** Where each per-k stage starts and ends inside that k's share (k-means dominates, then the SVM). */
const STAGE_SPAN: Record<'vocabulary' | 'encode' | 'train' | 'predict', [number, number]> = {
  vocabulary: [0, 0.6],
  encode: [0.6, 0.75],
  train: [0.75, 0.95],
  predict: [0.95, 1],
}

const PHASE: Record<RuntimeProgress['stage'], EvaluationPhase> = {
  load: 'hog',
  features: 'hog',
  vocabulary: 'kmeans',
  encode: 'encode',
  train: 'train',
  predict: 'test',
}

/**
 * Turns the runtime's per-stage progress into the API's overall progress: `fraction` ∈ [0, 1]
 * over the whole evaluation (never decreasing), with a human message. The k's share the work
 * equally (the k-means of a larger k is slower, but its iterations are reported, so the bar moves).
 */
export function progressTracker(ks: readonly number[]): (p: RuntimeProgress) => EvaluationProgress {
  let best = 0
  let kIndex = -1
  let lastK: number | undefined
  return (p) => {
    let fraction: number
    if (p.k === undefined) {
      // Decoding takes about a third of this share, HOG the rest.
      fraction = HOG_SHARE * (p.stage === 'load' ? 0.3 * p.fraction : 0.3 + 0.7 * p.fraction)
    } else {
      // The same k may be listed twice: advance on every new vocabulary stage start.
      if (p.k !== lastK || (p.stage === 'vocabulary' && p.fraction === 0)) {
        kIndex = Math.min(kIndex + 1, ks.length - 1)
        lastK = p.k
      }
      const [from, to] = STAGE_SPAN[p.stage as keyof typeof STAGE_SPAN]
      const within = from + (to - from) * Math.min(1, Math.max(0, p.fraction))
      fraction = HOG_SHARE + ((1 - HOG_SHARE) * (Math.max(0, kIndex) + within)) / ks.length
    }
    best = Math.max(best, Math.min(1, fraction))
    return {
      phase: PHASE[p.stage],
      ...(p.k === undefined ? {} : { k: p.k }),
      fraction: best,
      message: message(p),
    }
  }
}

function message(p: RuntimeProgress): string {
  if (p.label === undefined) return stageMessage(p)
  // A stored vocabulary is named by its id (the runtime's label); it is not learned.
  const what = p.stage === 'vocabulary' ? 'stored centroids' : stageMessage(p).replace(/^k = \d+: /, '')
  return `vocabulary ${p.label} (k = ${p.k}): ${what}`
}

function stageMessage(p: RuntimeProgress): string {
  const pct = `${Math.round(p.fraction * 100)}%`
  switch (p.stage) {
    case 'load':
      return 'loading images'
    case 'features':
      return 'computing dense HOG'
    case 'vocabulary':
      return `k = ${p.k}: learning the vocabulary (k-means ${pct})`
    case 'encode':
      return `k = ${p.k}: encoding histograms`
    case 'train':
      return `k = ${p.k}: training the SVM`
    case 'predict':
      return `k = ${p.k}: testing`
  }
}
