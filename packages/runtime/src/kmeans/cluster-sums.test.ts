import { describe, expect, it } from 'vitest'
import { createRng } from '../random/rng.ts'
import { accumulatePartialSums } from './accel/partial-sums.ts'
import { generateBlobs } from './bench-data.ts'
import { createClusterSums } from './cluster-sums.ts'

/** Σ‖x − c(label)‖² point by point in float64: the definition. */
function bruteInertia(points: Float32Array, labels: Int32Array, centroids: Float32Array, d: number): number {
  let s = 0
  for (let i = 0; i < labels.length; i++) {
    for (let t = 0; t < d; t++) {
      const v = points[i * d + t]! - centroids[labels[i]! * d + t]!
      s += v * v
    }
  }
  return s
}

function randomLabels(n: number, k: number, seed: number): Int32Array {
  const rng = createRng(seed)
  return Int32Array.from({ length: n }, () => Math.floor(rng.next() * k))
}

/** `labels` with a `fraction` of the points moved to another random cluster. */
function perturb(labels: Int32Array, k: number, fraction: number, seed: number): Int32Array {
  const rng = createRng(seed)
  return labels.map((l) => (rng.next() < fraction ? (l + 1 + Math.floor(rng.next() * (k - 1))) % k : l))
}

describe('cluster sums kept across iterations', () => {
  const n = 2_000
  const d = 12
  const k = 25
  const { points } = generateBlobs({ n, d, blobs: 8, seed: 5 })

  it('equal a full recomputation after any mix of delta updates and recomputations', () => {
    const sums = createClusterSums(points, d)
    let labels = randomLabels(n, k, 1)
    expect(sums.update(labels, k)).toBe(n)
    // 5% and 30% take the delta path, 80% the recomputation; 0% changes nothing.
    for (const [step, fraction] of [0.05, 0.3, 0.8, 0, 0.05].entries()) {
      const next = perturb(labels, k, fraction, 10 + step)
      let expectedChanged = 0
      for (let i = 0; i < n; i++) if (next[i] !== labels[i]) expectedChanged++
      expect(sums.update(next, k)).toBe(expectedChanged)
      labels = next
      const full = accumulatePartialSums(points, labels, d, k)
      expect([...sums.partials.counts]).toEqual([...full.counts])
      for (let j = 0; j < k * d; j++)
        expect(Math.abs(sums.partials.sums[j]! - full.sums[j]!)).toBeLessThanOrEqual(
          1e-9 * (1 + Math.abs(full.sums[j]!)),
        )
    }
  })

  it('give the inertia of the definition, also far from the origin where ‖x‖² dwarfs it', () => {
    for (const offset of [0, 1e4]) {
      const shifted = points.map((v) => v + offset)
      const sums = createClusterSums(shifted, d)
      const labels = randomLabels(n, k, 2)
      sums.update(labels, k)
      const rng = createRng(3)
      const centroids = new Float32Array(k * d).map(() => offset + rng.normal())
      const expected = bruteInertia(shifted, labels, centroids, d)
      expect(Math.abs(sums.inertia(centroids) - expected) / expected).toBeLessThan(1e-9)
    }
  })

  it('start over when k changes, and reject labels of the wrong length', () => {
    const sums = createClusterSums(points, d)
    sums.update(randomLabels(n, k, 4), k)
    const small = randomLabels(n, 3, 5)
    sums.update(small, 3)
    expect(sums.partials.k).toBe(3)
    expect([...sums.partials.counts]).toEqual([...accumulatePartialSums(points, small, d, 3).counts])
    expect(() => sums.update(new Int32Array(5), 3)).toThrow(/5 labels for 2000 points/)
    // A label out of range is refused before anything moves: the sums stay those of `small`.
    const bad = small.slice()
    bad[7] = (bad[7]! + 1) % 3
    bad[1999] = 3
    expect(() => sums.update(bad, 3)).toThrow(/label 3 of point 1999 is outside \[0, 3\)/)
    expect([...sums.partials.counts]).toEqual([...accumulatePartialSums(points, small, d, 3).counts])
  })
})
