import { UsageError } from '../errors.ts'
import type { Rng } from '../random/rng.ts'

/** Options of {@link trainLinearSvm}; the defaults are scikit-learn `LinearSVC`'s. */
export interface LinearSvmOptions {
  /** Inverse regularisation strength. */
  c?: number
  /** Stop when the projected-gradient spread of an outer pass falls below this. */
  tol?: number
  /** Upper bound on outer passes over the data. */
  maxPasses?: number
  /** Value of the constant feature appended for the intercept (LIBLINEAR's bias, LinearSVC's intercept_scaling). */
  biasScale?: number
}

/** A binary linear classifier: decision(x) = w·x + b. */
export interface BinarySvm {
  weights: Float64Array
  bias: number
  /** Outer passes run; equals maxPasses when the solver did not converge. */
  passes: number
}

/**
 * Trains an L2-regularised, L2-loss (squared hinge) linear SVM by dual coordinate descent —
 * LIBLINEAR's `L2R_L2LOSS_SVC_DUAL` solver (Hsieh et al., ICML 2008), the default of
 * scikit-learn's `LinearSVC`. The intercept is a constant feature `biasScale`, regularised
 * like the weights, as LIBLINEAR does.
 *
 * Dual: min ½ αᵀ(Q + I/(2C))α − Σα, α ≥ 0, Q_ij = y_i y_j x_i·x_j; primal w = Σ α_i y_i x_i.
 *
 * @param x n × d row-major features
 * @param y n labels in {−1, +1}
 */
export function trainBinarySvm(
  x: Float32Array,
  y: Int8Array,
  d: number,
  rng: Rng,
  options: LinearSvmOptions = {},
): BinarySvm {
  const c = options.c ?? 1
  const tol = options.tol ?? 1e-4
  const maxPasses = options.maxPasses ?? 1000
  const biasScale = options.biasScale ?? 1
  const n = y.length
  if (x.length !== n * d)
    throw new UsageError('SVM_BAD_SHAPE', `features have ${x.length} values, expected n·d = ${n * d}`)
  if (!(c > 0)) throw new UsageError('SVM_BAD_PARAMS', `C must be positive, got ${c}`)

  const dAug = d + 1 // the last weight is the intercept's
  const w = new Float64Array(dAug)
  const alpha = new Float64Array(n)
  const diag = 1 / (2 * c)
  const qii = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    let s = biasScale * biasScale
    for (let t = 0, o = i * d; t < d; t++) s += x[o + t] * x[o + t]
    qii[i] = s + diag
  }
  const order = new Int32Array(n)
  for (let i = 0; i < n; i++) order[i] = i

  let passes = 0
  while (passes < maxPasses) {
    passes++
    // A fresh random order each pass, as LIBLINEAR does: it converges faster than a fixed order.
    for (let i = n - 1; i > 0; i--) {
      const j = rng.int(i + 1)
      const tmp = order[i]
      order[i] = order[j]
      order[j] = tmp
    }
    let pgMax = Number.NEGATIVE_INFINITY
    let pgMin = Number.POSITIVE_INFINITY
    for (let s = 0; s < n; s++) {
      const i = order[s]
      const yi = y[i]
      const o = i * d
      let dot = w[d] * biasScale
      for (let t = 0; t < d; t++) dot += w[t] * x[o + t]
      const g = yi * dot - 1 + diag * alpha[i]
      // Projected gradient: at the bound α = 0 only a negative gradient can move α.
      const pg = alpha[i] === 0 ? Math.min(g, 0) : g
      if (pg > pgMax) pgMax = pg
      if (pg < pgMin) pgMin = pg
      if (Math.abs(pg) > 1e-12) {
        const old = alpha[i]
        alpha[i] = Math.max(old - g / qii[i], 0)
        const step = (alpha[i] - old) * yi
        for (let t = 0; t < d; t++) w[t] += step * x[o + t]
        w[d] += step * biasScale
      }
    }
    if (pgMax - pgMin <= tol) break
  }
  return { weights: w.subarray(0, d), bias: w[d] * biasScale, passes }
}

/** One-versus-rest multi-class linear SVM. */
export interface LinearSvmModel {
  classes: number
  d: number
  /** classes × d weights, row-major. */
  weights: Float64Array
  biases: Float64Array
}

/**
 * Trains one binary SVM per class (that class against the rest), as `LinearSVC` does for
 * more than two classes. `labels` are 0..classes−1.
 */
export function trainLinearSvm(
  x: Float32Array,
  labels: Int32Array,
  d: number,
  classes: number,
  rng: Rng,
  options: LinearSvmOptions = {},
): LinearSvmModel {
  const weights = new Float64Array(classes * d)
  const biases = new Float64Array(classes)
  const y = new Int8Array(labels.length)
  for (let cls = 0; cls < classes; cls++) {
    for (let i = 0; i < labels.length; i++) y[i] = labels[i] === cls ? 1 : -1
    const model = trainBinarySvm(x, y, d, rng, options)
    weights.set(model.weights, cls * d)
    biases[cls] = model.bias
  }
  return { classes, d, weights, biases }
}

/** Predicts the class with the largest decision value for each row of `x` (ties to the lowest class). */
export function predictLinearSvm(model: LinearSvmModel, x: Float32Array): Int32Array {
  const { d, classes, weights, biases } = model
  const n = d === 0 ? 0 : x.length / d
  const out = new Int32Array(n)
  for (let i = 0; i < n; i++) {
    let best = Number.NEGATIVE_INFINITY
    let bestCls = 0
    for (let cls = 0; cls < classes; cls++) {
      let v = biases[cls]
      for (let t = 0, o = i * d, wo = cls * d; t < d; t++) v += weights[wo + t] * x[o + t]
      if (v > best) {
        best = v
        bestCls = cls
      }
    }
    out[i] = bestCls
  }
  return out
}
