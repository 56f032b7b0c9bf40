import type {
  EvaluationParams,
  EvaluationPhase,
  EvaluationProgress,
  MisclassifiedImage,
} from '@codebook/shared'

const PHASE_LABELS: Record<EvaluationPhase, string> = {
  hog: 'Extracting HOG patches',
  kmeans: 'Learning the vocabulary',
  encode: 'Encoding histograms',
  train: 'Training the SVM',
  test: 'Testing',
}

/**
 * One line for the progress bar. The server's message already names the phase and k
 * ("k = 64: learning the vocabulary (k-means 40%)"); without one, the phase and k are named here.
 */
export function phaseText(progress: Pick<EvaluationProgress, 'phase' | 'k' | 'message'>): string {
  const message = progress.message.trim()
  // As sent: it may start with the symbol k, which must stay lower case.
  if (message !== '') return message
  return `${PHASE_LABELS[progress.phase]}${progress.k !== undefined ? ` (k = ${progress.k})` : ''}`
}

/** A class's display name: its name from the image set, else its label number. */
export function className(classes: readonly string[], label: number): string {
  return classes[label] ?? String(label)
}

/** Caption of a misclassified image: "true → predicted" with class names. */
export function misclassifiedCaption(
  m: Pick<MisclassifiedImage, 'trueLabel' | 'predicted'>,
  classes: readonly string[],
): string {
  return `${className(classes, m.trueLabel)} → ${className(classes, m.predicted)}`
}

/** How many vocabularies an evaluation scores: its learned k plus its stored vocabularies. */
export function plannedVocabularies(params: Pick<EvaluationParams, 'k' | 'vocabularyIds'>): number {
  return params.k.length + params.vocabularyIds.length
}

/** "16, 64" for learned k, then "+ vocabulary ID" per stored vocabulary. */
export function vocabulariesText(params: Pick<EvaluationParams, 'k' | 'vocabularyIds'>): string {
  const parts = params.k.length > 0 ? [params.k.join(', ')] : []
  for (const id of params.vocabularyIds) parts.push(`vocabulary ${id}`)
  return parts.join(' + ')
}
