import { describe, expect, it } from 'vitest'
import { confusionAccuracy, confusionCellColour, confusionCellDark, normaliseConfusion } from './confusion.ts'

/** A small seeded generator (LCG), so the test data is fixed. */
function lcg(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

describe('confusion matrix', () => {
  // Independent reference: recall and accuracy counted straight from (true, predicted) pairs.
  const classes = 5
  const rand = lcg(42)
  const pairs: [number, number][] = []
  for (let i = 0; i < 400; i++) {
    const t = Math.floor(rand() * (classes - 1)) // class 4 never occurs: a row of zeros
    const p = rand() < 0.7 ? t : Math.floor(rand() * classes)
    pairs.push([t, p])
  }
  const confusion = Array.from({ length: classes }, () => new Array<number>(classes).fill(0))
  for (const [t, p] of pairs) confusion[t]![p]! += 1

  it('row-normalises so the diagonal is each class recall and rows sum to one', () => {
    const norm = normaliseConfusion(confusion)
    for (let c = 0; c < classes - 1; c++) {
      const ofClass = pairs.filter(([t]) => t === c)
      const recall = ofClass.filter(([, p]) => p === c).length / ofClass.length
      expect(norm[c]![c]).toBeCloseTo(recall, 12)
      expect(norm[c]!.reduce((s: number, v) => s + (v ?? 0), 0)).toBeCloseTo(1, 12)
    }
    expect(norm[classes - 1]).toEqual([null, null, null, null, null])
  })

  it('gives the overall accuracy of the pairs', () => {
    const correct = pairs.filter(([t, p]) => t === p).length
    expect(confusionAccuracy(confusion)).toBeCloseTo(correct / pairs.length, 12)
    expect(
      confusionAccuracy([
        [0, 0],
        [0, 0],
      ]),
    ).toBeNull()
  })

  it('colours the diagonal blue and mistakes red, deeper with the share; blank for none', () => {
    expect(confusionCellColour(null, true)).toBe('transparent')
    expect(confusionCellColour(0, false)).toBe('transparent')
    expect(confusionCellColour(1, true)).toBe('rgba(47, 91, 234, 0.900)')
    expect(confusionCellColour(0.05, false)).toBe('rgba(220, 38, 38, 0.200)')
    expect(confusionCellColour(0.9, false)).toBe('rgba(220, 38, 38, 0.850)')
    expect(confusionCellDark(0.9, true)).toBe(true)
    expect(confusionCellDark(0.2, true)).toBe(false)
  })
})
