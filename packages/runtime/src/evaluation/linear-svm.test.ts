import { describe, expect, it } from 'vitest'
import { createRng } from '../random/rng.ts'
import { predictLinearSvm, trainBinarySvm, trainLinearSvm } from './linear-svm.ts'

/** Primal objective of the L2-loss SVM with the intercept as a regularised constant feature. */
function primal(
  x: Float32Array,
  y: Int8Array,
  d: number,
  w: Float64Array,
  b: number,
  c: number,
  biasScale: number,
) {
  const wb = b / biasScale
  let obj = 0.5 * wb * wb
  for (let t = 0; t < d; t++) obj += 0.5 * w[t]! * w[t]!
  for (let i = 0; i < y.length; i++) {
    let f = b
    for (let t = 0; t < d; t++) f += w[t]! * x[i * d + t]!
    const margin = Math.max(0, 1 - y[i]! * f)
    obj += c * margin * margin
  }
  return obj
}

/** Dual objective at the α implied by the primal solution: α_i = 2C·max(0, 1 − y_i f(x_i)) (KKT). */
function dualAtKkt(
  x: Float32Array,
  y: Int8Array,
  d: number,
  w: Float64Array,
  b: number,
  c: number,
  biasScale: number,
) {
  const n = y.length
  const alpha = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    let f = b
    for (let t = 0; t < d; t++) f += w[t]! * x[i * d + t]!
    alpha[i] = 2 * c * Math.max(0, 1 - y[i]! * f)
  }
  // w(α) = Σ α_i y_i [x_i, biasScale], computed independently of the solver's w.
  const wa = new Float64Array(d + 1)
  for (let i = 0; i < n; i++) {
    for (let t = 0; t < d; t++) wa[t]! += alpha[i]! * y[i]! * x[i * d + t]!
    wa[d]! += alpha[i]! * y[i]! * biasScale
  }
  let obj = 0
  for (let i = 0; i < n; i++) obj += alpha[i]! - (alpha[i]! * alpha[i]!) / (4 * c)
  for (const v of wa) obj -= 0.5 * v * v
  return obj
}

function blobs(seed: number, perClass: number, classes: number, d: number, spread: number) {
  const rng = createRng(seed)
  const centres = Array.from({ length: classes }, () => Array.from({ length: d }, () => rng.normal() * 3))
  const x = new Float32Array(perClass * classes * d)
  const labels = new Int32Array(perClass * classes)
  for (let c = 0; c < classes; c++)
    for (let i = 0; i < perClass; i++) {
      const row = c * perClass + i
      labels[row] = c
      for (let t = 0; t < d; t++) x[row * d + t] = centres[c]![t]! + rng.normal() * spread
    }
  return { x, labels }
}

describe('trainBinarySvm', () => {
  it('matches the closed form on two symmetric points', () => {
    // x = ±1 with labels ±1 and no intercept: min ½w² + 2C(1 − w)² gives w = 4C / (1 + 4C).
    for (const c of [0.1, 1, 10]) {
      const model = trainBinarySvm(Float32Array.from([1, -1]), Int8Array.from([1, -1]), 1, createRng(1), {
        c,
        biasScale: 0,
        tol: 1e-10,
      })
      expect(model.weights[0]).toBeCloseTo((4 * c) / (1 + 4 * c), 8)
    }
  })

  it('reaches the optimum: primal and dual objectives meet (zero duality gap)', () => {
    const { x, labels } = blobs(7, 60, 2, 5, 2.5) // overlapping classes: many active margins
    const y = Int8Array.from(labels, (l) => (l === 0 ? 1 : -1))
    for (const c of [0.05, 1]) {
      const m = trainBinarySvm(x, y, 5, createRng(3), { c, tol: 1e-7, maxPasses: 20_000 })
      const p = primal(x, y, 5, m.weights, m.bias, c, 1)
      const dual = dualAtKkt(x, y, 5, m.weights, m.bias, c, 1)
      expect(dual).toBeLessThanOrEqual(p + 1e-9 * Math.abs(p)) // weak duality
      expect((p - dual) / p).toBeLessThan(1e-4)
      expect(m.passes).toBeLessThan(20_000)
    }
  })
})

describe('trainLinearSvm (one-versus-rest)', () => {
  it('separates well-separated classes perfectly and is deterministic under a seed', () => {
    const { x, labels } = blobs(11, 40, 4, 6, 0.3)
    const a = trainLinearSvm(x, labels, 6, 4, createRng(5))
    const b = trainLinearSvm(x, labels, 6, 4, createRng(5))
    expect(Array.from(predictLinearSvm(a, x))).toEqual(Array.from(labels))
    expect(Array.from(a.weights)).toEqual(Array.from(b.weights))
  })
})
