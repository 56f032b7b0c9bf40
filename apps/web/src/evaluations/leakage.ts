import type { VocabularySummary } from '@codebook/shared'

/**
 * The leakage warning of an evaluation that uses stored vocabularies. The evaluation splits its
 * image set into train and test images and learns its own vocabularies (`k`) on the train images
 * only; a stored vocabulary was learned by a run on a dataset, outside that split, and nothing
 * records which images a dataset's vectors came from. So the rule is the honest minimum: a stored
 * vocabulary always gets the warning, naming its datasets (the digits demo dataset is the HOG of
 * every digit of the digits demo image set, test digits included).
 */
export function storedVocabularyLeakage(chosen: readonly Pick<VocabularySummary, 'datasetName'>[]): string {
  const names = [
    ...new Set(chosen.map((v) => (v.datasetName === null ? 'a deleted dataset' : `“${v.datasetName}”`))),
  ]
  const from = names.length === 0 ? 'its run’s dataset' : names.join(', ')
  return `A stored vocabulary was learned on ${from}, outside this evaluation’s train/test split. If those vectors come from this image set’s images — the digits demo dataset holds every digit of the digits demo image set — the test images were seen when it was learned, and the accuracy is optimistic. For a clean split, give vocabulary sizes k instead: they are learned on the train images only.`
}
