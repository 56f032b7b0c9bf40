import { describe, expect, it } from 'vitest'
import { className, misclassifiedCaption, phaseText } from './evaluation-format.ts'

describe('evaluation text', () => {
  it('shows the server message, or names the phase and k without one', () => {
    expect(
      phaseText({ phase: 'kmeans', k: 64, message: 'k = 64: learning the vocabulary (k-means 40%)' }),
    ).toBe('k = 64: learning the vocabulary (k-means 40%)')
    expect(phaseText({ phase: 'hog', message: 'loading images' })).toBe('loading images')
    expect(phaseText({ phase: 'kmeans', k: 16, message: ' ' })).toBe('Learning the vocabulary (k = 16)')
    expect(phaseText({ phase: 'hog', message: '' })).toBe('Extracting HOG patches')
  })

  it('captions a mistake with class names, falling back to the label', () => {
    expect(
      misclassifiedCaption({ trueLabel: 3, predicted: 8 }, ['0', '1', '2', '3', '4', '5', '6', '7', '8']),
    ).toBe('3 → 8')
    expect(misclassifiedCaption({ trueLabel: 0, predicted: 2 }, ['cat', 'dog'])).toBe('cat → 2')
    expect(className([], 7)).toBe('7')
  })
})
