// @codebook/runtime/evaluation — a vocabulary judged by classification: bag of words, linear SVM, report.
export type {
  EvaluateOptions,
  EvaluationProgress,
  EvaluationResult,
  GivenVocabulary,
  VocabularyEvaluation,
} from '../evaluation/evaluate.ts'
export { evaluateVocabularies, readVocabularyFile, vocabularyDimensionError } from '../evaluation/evaluate.ts'
export type { LabelledImageSet, LabelledImageSource } from '../evaluation/labelled-images.ts'
export { loadLabelledImages } from '../evaluation/labelled-images.ts'
