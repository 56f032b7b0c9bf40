import { describe, expect, it } from 'vitest'
import { createRng } from '../random/rng.ts'
import {
  cellHistograms,
  DEFAULT_HOG_EPSILON,
  denseHog,
  hogDescriptor,
  hogLength,
  L2HYS_CLIP,
  l2Hys,
} from './hog.ts'

const EPS = DEFAULT_HOG_EPSILON

/** A width × height image with pixel (x, y) = f(x, y). */
function image(width: number, height: number, f: (x: number, y: number) => number): Float32Array {
  const pixels = new Float32Array(width * height)
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) pixels[y * width + x] = f(x, y)
  return pixels
}

/** The `bins` values of cell (cy, cx) in a row-major cell histogram array with `cellsX` cells per row. */
function cellAt(hist: Float32Array, cellsX: number, cy: number, cx: number, bins: number): number[] {
  const base = (cy * cellsX + cx) * bins
  return Array.from(hist.subarray(base, base + bins))
}

function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>, tol = 1e-6): void {
  expect(actual.length).toBe(expected.length)
  for (let i = 0; i < expected.length; i++) {
    if (Math.abs(actual[i] - expected[i]) > tol) {
      throw new Error(
        `component ${i}: ${actual[i]} != ${expected[i]} (±${tol})\n actual: ${Array.from(actual)}`,
      )
    }
  }
}

function bin(b: number, value: number, bins = 8): number[] {
  const h = new Array<number>(bins).fill(0)
  h[b] = value
  return h
}

describe('cellHistograms and hogDescriptor, hand-computed', () => {
  it('a uniform patch has all-zero histograms and an all-zero (not NaN) descriptor', () => {
    const pixels = image(8, 8, () => 0.37)
    expect(Array.from(cellHistograms(pixels, 8, 8, { cell: 4, bins: 8 }))).toEqual(new Array(4 * 8).fill(0))
    const desc = hogDescriptor(pixels, 8, 8, { cell: 4, bins: 8 })
    expect(desc.length).toBe(32)
    expect(Array.from(desc)).toEqual(new Array(32).fill(0))
  })

  it('a vertical edge puts all its energy in the 0° bin of the cells touching it', () => {
    // Columns 0–3 are 0, columns 4–7 are 1. gx = I(x+1) − I(x−1) is 1 at x = 3 and x = 4 only (the
    // clamped borders see a flat row), gy = 0 everywhere: θ = 0°, magnitude 1, bin 0 with no share
    // for bin 1. Each 4×4 cell holds one such column of 4 pixels: histogram [4, 0, …, 0].
    const pixels = image(8, 8, (x) => (x >= 4 ? 1 : 0))
    const hist = cellHistograms(pixels, 8, 8, { cell: 4, bins: 8 })
    for (let cy = 0; cy < 2; cy++)
      for (let cx = 0; cx < 2; cx++) expectClose(cellAt(hist, 2, cy, cx, 8), bin(0, 4))

    // One block of the 4 cells: v has four 4s, ‖v‖ = 8. Step 1: 4 / √(64 + ε²) ≈ 0.5, clipped to 0.2.
    // Step 2: 0.2 / √(4 · 0.2² + ε²) ≈ 0.5 in each cell's bin 0.
    const first = 4 / Math.sqrt(64 + EPS * EPS)
    expect(first).toBeGreaterThan(L2HYS_CLIP)
    const v = 0.2 / Math.sqrt(4 * 0.2 * 0.2 + EPS * EPS)
    const desc = hogDescriptor(pixels, 8, 8, { cell: 4, bins: 8 })
    expectClose(desc, [...bin(0, v), ...bin(0, v), ...bin(0, v), ...bin(0, v)])
  })

  it('an edge inside the middle column of cells leaves the other cells empty', () => {
    // 12 × 8, edge between columns 5 and 6: gx = 1 at x = 5 and 6, both in cell column 1
    // (pixels 4–7), so cells (·, 1) hold 2 columns × 4 rows = 8 in bin 0 and cells (·, 0), (·, 2) nothing.
    const pixels = image(12, 8, (x) => (x >= 6 ? 1 : 0))
    const hist = cellHistograms(pixels, 12, 8, { cell: 4, bins: 8 })
    for (let cy = 0; cy < 2; cy++) {
      expectClose(cellAt(hist, 3, cy, 0, 8), bin(0, 0))
      expectClose(cellAt(hist, 3, cy, 1, 8), bin(0, 8))
      expectClose(cellAt(hist, 3, cy, 2, 8), bin(0, 0))
    }
    // 3 × 2 cells: blocks at (0, 0) and (0, 1), 2 × 32 values. Block 0 = cells (0,0) (0,1) (1,0) (1,1):
    // v = [0, 8, 0, 8] in bin 0; 8 / √128 ≈ 0.707 clips to 0.2, renormalised 0.2 / √(2 · 0.2² + ε²).
    // Block 1 = cells (0,1) (0,2) (1,1) (1,2): the same values in the first and third cell.
    const v = 0.2 / Math.sqrt(2 * 0.2 * 0.2 + EPS * EPS)
    const z = bin(0, 0)
    const desc = hogDescriptor(pixels, 12, 8, { cell: 4, bins: 8 })
    expectClose(desc, [...z, ...bin(0, v), ...z, ...bin(0, v), ...bin(0, v), ...z, ...bin(0, v), ...z])
  })

  it('a diagonal edge brightening towards the bottom-right lands in the 45° bin (y grows downwards)', () => {
    // 12 × 12, I = 1 where x + y ≥ 12. Away from the border gx = gy = [x + y ∈ {11, 12}], so those
    // pixels have θ = atan2(1, 1) = 45° = bin 2 (of 22.5° bins) exactly, magnitude √2. In the centre
    // cell (pixels 4–7, no border effect) that is x + y = 11: 4 pixels, x + y = 12: 3 pixels.
    const pixels = image(12, 12, (x, y) => (x + y >= 12 ? 1 : 0))
    const hist = cellHistograms(pixels, 12, 12, { cell: 4, bins: 8 })
    expectClose(cellAt(hist, 3, 1, 1, 8), bin(2, 7 * Math.SQRT2))
  })

  it('a diagonal edge brightening towards the top-right lands in the 135° bin', () => {
    // I = 1 where x > y: gx = 1 and gy = −1 where y ∈ {x − 1, x}; atan2(−1, 1) = −45° ≡ 135° = bin 6.
    // Centre cell: y = x (4 pixels) and y = x − 1 (3 pixels).
    const pixels = image(12, 12, (x, y) => (x > y ? 1 : 0))
    const hist = cellHistograms(pixels, 12, 12, { cell: 4, bins: 8 })
    expectClose(cellAt(hist, 3, 1, 1, 8), bin(6, 7 * Math.SQRT2))
  })

  it('splits a vote linearly between the two nearest bin centres', () => {
    // A linear ramp I = 0.5 + s(x cos φ + y sin φ) has gx = 2s cos φ, gy = 2s sin φ away from the
    // border: magnitude 2s at θ = φ. With 8 bins of 22.5°, φ = 30° sits 1⅓ bins in: ⅔ to bin 1, ⅓ to
    // bin 2. The centre cell holds 16 such pixels.
    const s = 0.01
    const ramp = (phiDeg: number) => {
      const phi = (phiDeg * Math.PI) / 180
      return image(12, 12, (x, y) => 0.5 + s * (x * Math.cos(phi) + y * Math.sin(phi)))
    }
    const total = 16 * 2 * s
    const expected30 = bin(1, (total * 2) / 3)
    expected30[2] = total / 3
    expectClose(cellAt(cellHistograms(ramp(30), 12, 12, { cell: 4, bins: 8 }), 3, 1, 1, 8), expected30, 1e-5)

    // φ = 170° is 7.56 bins in: it wraps, 0.444 to bin 7 and 0.556 to bin 0. φ = −10° is the same
    // unsigned orientation (the opposite gradient direction), so it must give the same histogram.
    const f = 170 / 22.5 - 7
    const expected170 = bin(7, total * (1 - f))
    expected170[0] = total * f
    expectClose(
      cellAt(cellHistograms(ramp(170), 12, 12, { cell: 4, bins: 8 }), 3, 1, 1, 8),
      expected170,
      1e-5,
    )
    expectClose(
      cellAt(cellHistograms(ramp(-10), 12, 12, { cell: 4, bins: 8 }), 3, 1, 1, 8),
      expected170,
      1e-5,
    )
  })
})

describe('l2Hys', () => {
  it('normalises, clips at 0.2 and renormalises (hand-computed)', () => {
    // [1, 0.1]: step 1 divides by √(1.01 + ε²) giving ≈ [0.995, 0.0995]; the first clips to 0.2;
    // step 2 divides [0.2, 0.0995] by √(0.2² + 0.0995² + ε²) ≈ 0.2234: ≈ [0.895, 0.445].
    const out = new Float32Array([9, 1, 0.1, 9])
    l2Hys(out, 1, 2, EPS)
    const b = 0.1 / Math.sqrt(1.01 + EPS * EPS)
    const n2 = Math.sqrt(0.04 + b * b + EPS * EPS)
    expectClose(out, [9, 0.2 / n2, b / n2, 9])
    expect(out[1]).toBeCloseTo(0.8953, 4)
    expect(out[2]).toBeCloseTo(0.4454, 4)
  })

  it('leaves a zero block zero', () => {
    const out = new Float32Array(8)
    l2Hys(out, 0, 8)
    expect(Array.from(out)).toEqual(new Array(8).fill(0))
  })

  it('on real blocks: no component above 0.2 before renormalising, unit norm after', () => {
    // Seeded noise images; each block of the descriptor is checked against the definition applied
    // to the raw cell histograms: c = min(v / ‖v‖, 0.2), output = c / ‖c‖.
    const rng = createRng(7)
    let clipped = 0
    for (let trial = 0; trial < 20; trial++) {
      const pixels = image(16, 16, () => rng.next())
      const params = { cell: 4, bins: 9 }
      const hist = cellHistograms(pixels, 16, 16, params)
      const desc = hogDescriptor(pixels, 16, 16, params)
      expect(desc.length).toBe(9 * 4 * 9)
      let o = 0
      for (let by = 0; by < 3; by++) {
        for (let bx = 0; bx < 3; bx++) {
          const v: number[] = []
          for (const [cy, cx] of [
            [by, bx],
            [by, bx + 1],
            [by + 1, bx],
            [by + 1, bx + 1],
          ] as const) {
            v.push(...cellAt(hist, 4, cy, cx, 9))
          }
          const norm = Math.hypot(...v)
          const c = v.map((x) => Math.min(x / norm, 0.2))
          if (v.some((x) => x / norm > 0.2)) clipped++
          expect(Math.max(...c)).toBeLessThanOrEqual(0.2)
          const cn = Math.hypot(...c)
          const block = desc.subarray(o, o + 36)
          expectClose(
            block,
            c.map((x) => x / cn),
            1e-4,
          )
          expect(Math.hypot(...block)).toBeCloseTo(1, 4)
          o += 36
        }
      }
    }
    // The check above only means something if clipping actually happened.
    expect(clipped).toBeGreaterThan(0)
  })
})

describe('hogLength and denseHog', () => {
  const cases = [
    { patch: 8, cell: 4, bins: 8, blockCells: 2, closed: 1 * 4 * 8 },
    { patch: 16, cell: 4, bins: 9, blockCells: 2, closed: 9 * 4 * 9 },
    { patch: 12, cell: 4, bins: 8, blockCells: 2, closed: 4 * 4 * 8 },
    { patch: 16, cell: 8, bins: 9, blockCells: 2, closed: 1 * 4 * 9 },
    { patch: 24, cell: 4, bins: 6, blockCells: 3, closed: 16 * 9 * 6 },
    { patch: 8, cell: 2, bins: 4, blockCells: 1, closed: 16 * 1 * 4 },
    { patch: 20, cell: 4, bins: 8, blockCells: 2, closed: 512 },
  ]

  it.each(cases)('patch $patch cell $cell bins $bins blockCells $blockCells: d = $closed', (c) => {
    const { closed, ...params } = c
    const cells = params.patch / params.cell
    expect(hogLength(params)).toBe(
      (cells - params.blockCells + 1) ** 2 * params.blockCells ** 2 * params.bins,
    )
    expect(hogLength(params)).toBe(closed)
    const rng = createRng(params.patch * 100 + params.bins)
    const width = params.patch + 9
    const height = params.patch + 5
    const pixels = image(width, height, () => rng.next())
    const stride = 3
    const res = denseHog({ pixels, width, height }, { ...params, stride })
    const n =
      (Math.floor((width - params.patch) / stride) + 1) * (Math.floor((height - params.patch) / stride) + 1)
    expect(res.d).toBe(closed)
    expect(res.vectors.length).toBe(n * closed)
    expect(res.positions.length).toBe(2 * n)
    expect(res.vectors.every(Number.isFinite)).toBe(true)
  })

  it('lays 16 patches of a 20 × 20 image out row-major at stride 4', () => {
    const res = denseHog(
      { pixels: new Float32Array(400), width: 20, height: 20 },
      { patch: 8, stride: 4, cell: 4, bins: 8 },
    )
    const expected: number[] = []
    for (const row of [0, 4, 8, 12]) for (const col of [0, 4, 8, 12]) expected.push(row, col)
    expect(Array.from(res.positions)).toEqual(expected)
    expect(res.d).toBe(32)
  })

  it('a patch covering the whole image equals hogDescriptor of the image', () => {
    const rng = createRng(3)
    const pixels = image(16, 16, () => rng.next())
    const dense = denseHog({ pixels, width: 16, height: 16 }, { patch: 16, stride: 4, cell: 4, bins: 9 })
    expect(Array.from(dense.positions)).toEqual([0, 0])
    expect(Array.from(dense.vectors)).toEqual(Array.from(hogDescriptor(pixels, 16, 16, { cell: 4, bins: 9 })))
  })

  it('an inner patch sees its real neighbours: equal to the window alone when they replicate its border', () => {
    // Embed a random 8 × 8 window at (row 4, col 8) of a 20 × 20 image whose other pixels copy the
    // window's nearest border pixel; the image's gradients inside the window are then exactly the
    // window's own clamped gradients, so that patch must equal hogDescriptor of the window.
    const rng = createRng(11)
    const small = image(8, 8, () => rng.next())
    const clamp = (v: number) => Math.min(7, Math.max(0, v))
    const big = image(20, 20, (x, y) => small[clamp(y - 4) * 8 + clamp(x - 8)])
    const dense = denseHog({ pixels: big, width: 20, height: 20 }, { patch: 8, stride: 4, cell: 4, bins: 8 })
    const k = 1 * 4 + 2 // row 4 → i = 1, col 8 → j = 2
    expect([dense.positions[2 * k], dense.positions[2 * k + 1]]).toEqual([4, 8])
    expectClose(
      dense.vectors.subarray(k * 32, (k + 1) * 32),
      hogDescriptor(small, 8, 8, { cell: 4, bins: 8 }),
    )
  })

  it('rejects bad parameters with BAD_HOG_PARAMS', () => {
    const img = { pixels: new Float32Array(400), width: 20, height: 20 }
    const bad = [
      { patch: 10, stride: 4, cell: 4, bins: 8 }, // patch not a multiple of the cell
      { patch: 24, stride: 4, cell: 4, bins: 8 }, // patch larger than the image
      { patch: 8, stride: 0, cell: 4, bins: 8 },
      { patch: 8, stride: 4, cell: 4, bins: 0 },
      { patch: 8, stride: 4, cell: 0, bins: 8 },
      { patch: 8, stride: 4, cell: 4, bins: 8, blockCells: 3 }, // 2 cells per side cannot hold a 3 × 3 block
    ]
    for (const params of bad)
      expect(() => denseHog(img, params), JSON.stringify(params)).toThrow(
        expect.objectContaining({ code: 'BAD_HOG_PARAMS' }),
      )
    expect(() => hogLength({ patch: 6, cell: 4, bins: 8 })).toThrow(
      expect.objectContaining({ code: 'BAD_HOG_PARAMS' }),
    )
    expect(() => hogDescriptor(new Float32Array(10), 8, 8, { cell: 4, bins: 8 })).toThrow(
      expect.objectContaining({ code: 'BAD_HOG_PARAMS' }),
    )
  })
})
