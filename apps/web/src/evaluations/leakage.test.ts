import { describe, expect, it } from 'vitest'
import { storedVocabularyLeakage } from './leakage.ts'

describe('storedVocabularyLeakage', () => {
  it('names the datasets the stored vocabularies were learned on, once each', () => {
    const text = storedVocabularyLeakage([
      { datasetName: 'digits demo (HOG)' },
      { datasetName: 'digits demo (HOG)' },
      { datasetName: null },
    ])
    expect(text).toContain('learned on “digits demo (HOG)”, a deleted dataset, outside')
    expect(text).toContain('the accuracy is optimistic')
    expect(storedVocabularyLeakage([])).toContain('learned on its run’s dataset')
  })
})
