import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeNpy } from '../formats/npy/npy-writer.ts'
import { loadGridImages } from '../images/grid.ts'
import {
  type EvaluationHistograms,
  type EvaluationProgress,
  evaluateVocabularies,
  readVocabularyFile,
  type VocabularyEvaluation,
} from './evaluate.ts'

const DIGITS = fileURLToPath(new URL('../../../../data/digits.png', import.meta.url))
const HOG = { patch: 8, stride: 4, cell: 4, bins: 8 }

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'codebook-evaluate-'))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

/** Checks a result's bookkeeping against the truth it was computed from, recomputed here. */
function expectConsistent(r: VocabularyEvaluation, testPerClass: number[]): void {
  const classes = testPerClass.length
  expect(r.confusion).toHaveLength(classes)
  let total = 0
  let diagonal = 0
  r.confusion.forEach((row, c) => {
    expect(row).toHaveLength(classes)
    const rowSum = row.reduce((a, b) => a + b, 0)
    expect(rowSum).toBe(testPerClass[c]) // the split is stratified: each class's test share is known
    expect(r.perClass[c]).toBeCloseTo(row[c]! / rowSum, 12)
    total += rowSum
    diagonal += row[c]!
  })
  expect(total).toBe(r.testImages)
  expect(r.accuracy).toBeCloseTo(diagonal / total, 12)
  expect(r.misclassified).toHaveLength(Math.min(20, total - diagonal))
  for (const m of r.misclassified) {
    expect(m.label).not.toBe(m.predicted)
    expect(r.confusion[m.label]![m.predicted]).toBeGreaterThan(0)
  }
}

describe('evaluateVocabularies on digits', () => {
  it('1,000 digits (first 20 columns): accuracy rises from k = 16 to 64, far above chance; bookkeeping is consistent', async () => {
    const progress: EvaluationProgress[] = []
    const streamed: number[] = []
    const out = await evaluateVocabularies({
      source: { kind: 'grid', file: DIGITS, cellWidth: 20, cellHeight: 20, rowsPerClass: 5, columns: 20 },
      ks: [16, 64],
      hog: HOG,
      onProgress: (p) => progress.push(p),
      onResult: (r) => streamed.push(r.k),
    })
    expect(out.images).toBe(1000)
    expect(out.patches).toBe(16_000) // (20 − 8) / 4 + 1 = 4 patches per side
    expect(out.d).toBe(32)
    expect(out.classes).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'])
    expect(streamed).toEqual([16, 64])
    const [r16, r64] = out.results as [VocabularyEvaluation, VocabularyEvaluation]
    for (const r of out.results) {
      expect(r.trainImages).toBe(500)
      expect(r.testImages).toBe(500)
      expectConsistent(r, new Array(10).fill(50))
      expect(r.iterations).toBe(15)
    }
    // Chance is 0.1; the full-set prototype reached 0.65 and 0.86.
    expect(r16.accuracy).toBeGreaterThan(0.5)
    expect(r64.accuracy).toBeGreaterThan(r16.accuracy + 0.1)

    // Misclassified ids name test images whose true class is their grid band.
    const { images } = await loadGridImages(DIGITS, { cellWidth: 20, cellHeight: 20, rowsPerClass: 5 })
    const kept = images.filter((im) => im.gridCol < 20)
    for (const m of r64.misclassified) expect(kept[m.image]!.label).toBe(m.label)

    const stages = new Set(progress.map((p) => p.stage))
    expect([...stages]).toEqual(['load', 'features', 'vocabulary', 'encode', 'train', 'predict'])
    expect(progress.every((p) => p.fraction >= 0 && p.fraction <= 1)).toBe(true)
  })

  it('is reproducible under the same seeds', async () => {
    const run = () =>
      evaluateVocabularies({
        source: { kind: 'grid', file: DIGITS, cellWidth: 20, cellHeight: 20, rowsPerClass: 5, columns: 6 },
        ks: [8],
        hog: HOG,
        iterations: 5,
        encoding: 'triangle',
      })
    const [a, b] = [await run(), await run()]
    expect(a.results[0]!.confusion).toEqual(b.results[0]!.confusion)
    expectConsistent(a.results[0]!, new Array(10).fill(15))
  })
})

describe('evaluateVocabularies on a folder of class sub-folders', () => {
  it('labels by sorted sub-folder name and reports misclassified files', async () => {
    // Digits 0, 1 and 7 (grid bands 0, 1, 7) as PNG files, 12 of each, under names that sort differently from the digits.
    const { images } = await loadGridImages(DIGITS, { cellWidth: 20, cellHeight: 20, rowsPerClass: 5 })
    const root = join(dir, 'folder')
    const names: Record<number, string> = { 0: 'c-zero', 1: 'b-one', 7: 'a-seven' }
    for (const [digit, name] of Object.entries(names)) {
      await mkdir(join(root, name), { recursive: true })
      const cells = images.filter((im) => im.label === Number(digit) && im.gridRow % 5 === 0).slice(0, 12)
      for (const [i, im] of cells.entries()) {
        const bytes = Buffer.from(Uint8Array.from(im.pixels, (v) => Math.round(v * 255)))
        await writeFile(
          join(root, name, `${String(i).padStart(2, '0')}.png`),
          await sharp(bytes, { raw: { width: 20, height: 20, channels: 1 } })
            .png()
            .toBuffer(),
        )
      }
    }
    const out = await evaluateVocabularies({
      source: { kind: 'folder', dir: root },
      ks: [4],
      hog: HOG,
      iterations: 5,
    })
    expect(out.classes).toEqual(['a-seven', 'b-one', 'c-zero'])
    expect(out.images).toBe(36)
    const r = out.results[0]!
    expectConsistent(r, [6, 6, 6])
    for (const m of r.misclassified) expect(m.file).toContain(out.classes[m.label]!)
  })

  it('rejects bad input with coded errors', async () => {
    const base = { ks: [4], hog: HOG }
    await expect(
      evaluateVocabularies({ ...base, source: { kind: 'folder', dir: join(dir, 'nope') } }),
    ).rejects.toMatchObject({
      code: 'FILE_NOT_FOUND',
    })
    await expect(
      evaluateVocabularies({ ...base, ks: [0], source: { kind: 'folder', dir } }),
    ).rejects.toMatchObject({ code: 'EVAL_BAD_K' })
    const loose = join(dir, 'loose')
    await mkdir(join(loose, 'a'), { recursive: true })
    await writeFile(
      join(loose, 'top.png'),
      await sharp({ create: { width: 20, height: 20, channels: 3, background: { r: 0, g: 0, b: 0 } } })
        .png()
        .toBuffer(),
    )
    await expect(
      evaluateVocabularies({ ...base, source: { kind: 'folder', dir: loose } }),
    ).rejects.toMatchObject({
      code: 'EVAL_UNLABELLED',
    })
  })
})

describe('evaluateVocabularies with given vocabularies', () => {
  const source = {
    kind: 'grid' as const,
    file: DIGITS,
    cellWidth: 20,
    cellHeight: 20,
    rowsPerClass: 5,
    columns: 8,
  }

  it('given the centroids it learned, gives the same histograms and accuracy, without K-means', async () => {
    const learned: Float32Array[] = []
    const learnedHistograms: EvaluationHistograms[] = []
    const a = await evaluateVocabularies({
      source,
      ks: [16],
      hog: HOG,
      iterations: 5,
      onVocabulary: (v) => learned.push(v.centroids),
      onHistograms: (h) => learnedHistograms.push(h),
    })
    expect(learned).toHaveLength(1)
    // The centroids go through a .npy, as the server and the CLI hand them over.
    const file = join(dir, 'vocabulary-16.npy')
    await writeNpy(file, learned[0]!, 16, 32)
    const vocabulary = await readVocabularyFile(file, 'v16')
    expect(vocabulary).toMatchObject({ k: 16, d: 32, label: 'v16' })
    const givenHistograms: EvaluationHistograms[] = []
    const b = await evaluateVocabularies({
      source,
      ks: [],
      vocabularies: [vocabulary],
      hog: HOG,
      onHistograms: (h) => givenHistograms.push(h),
    })
    expect(givenHistograms).toHaveLength(1)
    expect(givenHistograms[0]!.trainX).toEqual(learnedHistograms[0]!.trainX)
    expect(givenHistograms[0]!.testX).toEqual(learnedHistograms[0]!.testX)
    const [r] = b.results as [VocabularyEvaluation]
    expect(r).toMatchObject({ k: 16, label: 'v16', iterations: 0, accuracy: a.results[0]!.accuracy })
    expect(r.confusion).toEqual(a.results[0]!.confusion)
    expect(r.accuracy).toBeGreaterThan(0.3)
  })

  it('refuses a vocabulary whose d is not the HOG length, naming both and parameters that fit', async () => {
    const vocabulary = { label: 'v324', k: 2, d: 324, centroids: new Float32Array(2 * 324) }
    const err = await evaluateVocabularies({ source, ks: [], vocabularies: [vocabulary], hog: HOG }).catch(
      (e: unknown) => e,
    )
    expect(err).toMatchObject({ code: 'VOCABULARY_DIMENSION_MISMATCH' })
    const message = (err as Error).message
    expect(message).toContain('d = 324')
    expect(message).toContain('d = 32')
    expect(message).toContain('patch 16, cell 4, bins 9')
    await expect(
      evaluateVocabularies({
        source,
        ks: [],
        vocabularies: [{ ...vocabulary, centroids: new Float32Array(5) }],
        hog: HOG,
      }),
    ).rejects.toMatchObject({ code: 'EVAL_BAD_VOCABULARY' })
    await expect(evaluateVocabularies({ source, ks: [], hog: HOG })).rejects.toMatchObject({
      code: 'EVAL_BAD_K',
    })
  })
})
