// Compares Codebook's linear SVM with scikit-learn's LinearSVC on the same digits histograms.
// Not part of `npm test`; run with test/bench/svm-vs-sklearn/run.sh (see there for the environment).
import { spawnSync } from 'node:child_process'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { evaluateVocabularies } from '@codebook/runtime/evaluation'
import { writeNpy } from '@codebook/runtime/formats'

/** Largest accepted |ours − sklearn| in accuracy points (percent). */
const MAX_DIFF_POINTS = 1.5

const ks = (process.env.KS ?? '16,64,256').split(',').map(Number)
const c = Number(process.env.C ?? 1)
const images = process.env.IMAGES ?? fileURLToPath(new URL('../../../data/digits.png', import.meta.url))
const python = process.env.PYTHON ?? '/usr/bin/python3'
const out = process.env.OUT ?? (await mkdtemp(join(tmpdir(), 'svm-vs-sklearn-')))

const writes: Promise<void>[] = []
const result = await evaluateVocabularies({
  source: { kind: 'grid', file: images, cellWidth: 20, cellHeight: 20, rowsPerClass: 5 },
  ks,
  hog: { patch: 8, stride: 4, cell: 4, bins: 8 },
  c,
  onHistograms: (h) => {
    const base = join(out, `k${h.k}`)
    writes.push(
      writeNpy(`${base}-train-x.npy`, h.trainX, h.trainY.length, h.k),
      writeNpy(`${base}-train-y.npy`, h.trainY, h.trainY.length, 1),
      writeNpy(`${base}-test-x.npy`, h.testX, h.testY.length, h.k),
      writeNpy(`${base}-test-y.npy`, h.testY, h.testY.length, 1),
    )
  },
})
await Promise.all(writes)

const script = fileURLToPath(new URL('./svm.py', import.meta.url))
const py = spawnSync(python, [script, out, String(c), ...ks.map(String)], { encoding: 'utf8' })
if (py.status !== 0) throw new Error(`${python} svm.py failed (${py.status}): ${py.stderr}`)
const sklearn = JSON.parse(py.stdout) as Record<string, number>

let worst = 0
const rows = result.results.map((r) => {
  const theirs = sklearn[String(r.k)]!
  const diffPoints = (r.accuracy - theirs) * 100
  worst = Math.max(worst, Math.abs(diffPoints))
  return { k: r.k, codebook: r.accuracy, sklearn: theirs, diffPoints: +diffPoints.toFixed(2) }
})
console.log(
  JSON.stringify({ images: result.images, c, histograms: out, rows, maxDiffPoints: MAX_DIFF_POINTS }),
)
for (const r of rows)
  console.error(
    `k ${String(r.k).padStart(5)}: codebook ${r.codebook.toFixed(4)}  sklearn ${r.sklearn.toFixed(4)}  diff ${r.diffPoints.toFixed(2)} points`,
  )
if (worst > MAX_DIFF_POINTS) {
  console.error(`FAIL: accuracies differ by ${worst.toFixed(2)} points (> ${MAX_DIFF_POINTS})`)
  process.exitCode = 1
}
