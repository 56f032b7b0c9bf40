import { describe, expect, it } from 'vitest'
import { createRng } from '../random/rng.ts'
import { encodeBagOfWords, encodeTriangle } from './bag-of-words.ts'
import { classificationReport } from './metrics.ts'
import { stratifiedSplit } from './split.ts'

describe('encodeBagOfWords', () => {
  it('counts words per image and normalises', () => {
    const words = Int32Array.from([0, 2, 2, 1, 1, 1])
    const images = Int32Array.from([0, 0, 0, 1, 1, 2])
    expect(Array.from(encodeBagOfWords(words, images, 3, 3, 'none'))).toEqual([1, 0, 2, 0, 2, 0, 0, 1, 0])
    const l1 = encodeBagOfWords(words, images, 3, 3, 'l1')
    expect(Array.from(l1.subarray(0, 3))).toEqual([1 / 3, 0, 2 / 3].map(Math.fround))
    const l2 = encodeBagOfWords(words, images, 3, 3, 'l2')
    expect(l2[0]).toBeCloseTo(1 / Math.sqrt(5), 6)
    expect(l2[2]).toBeCloseTo(2 / Math.sqrt(5), 6)
  })
})

describe('encodeTriangle', () => {
  it('weights only words nearer than the mean distance, by how much nearer', () => {
    // One 1-d patch at 0; words at 1, 2, 6 → z = 1, 2, 6, μ = 3 → votes 2, 1, 0.
    const h = encodeTriangle(
      Float32Array.from([0]),
      Int32Array.from([0]),
      1,
      Float32Array.from([1, 2, 6]),
      1,
      'none',
    )
    expect(Array.from(h)).toEqual([2, 1, 0])
  })
})

describe('stratifiedSplit', () => {
  it('splits every class by the fraction, disjointly and completely, reproducibly', () => {
    const labels = Int32Array.from({ length: 1000 }, (_, i) => i % 10)
    const a = stratifiedSplit(labels, 0.5, createRng(9))
    const b = stratifiedSplit(labels, 0.5, createRng(9))
    expect(Array.from(a.train)).toEqual(Array.from(b.train))
    expect(a.train.length + a.test.length).toBe(1000)
    expect(new Set([...a.train, ...a.test]).size).toBe(1000)
    for (let c = 0; c < 10; c++) expect(Array.from(a.train).filter((i) => labels[i] === c).length).toBe(50)
    const c = stratifiedSplit(labels, 0.5, createRng(10))
    expect(Array.from(c.train)).not.toEqual(Array.from(a.train))
  })
})

describe('classificationReport', () => {
  it('computes accuracy, recall per class and the confusion matrix', () => {
    const r = classificationReport(Int32Array.from([0, 0, 1, 1, 1]), Int32Array.from([0, 1, 1, 1, 0]), 2)
    expect(r.accuracy).toBeCloseTo(3 / 5)
    expect(r.confusion).toEqual([
      [1, 1],
      [1, 2],
    ])
    expect(r.perClass[0]).toBeCloseTo(0.5)
    expect(r.perClass[1]).toBeCloseTo(2 / 3)
  })
})
