import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { writeNpy } from '../../formats/npy/npy-writer.ts'
import { main } from '../main.ts'

const DIGITS = fileURLToPath(new URL('../../../../../data/digits.png', import.meta.url))

/** Runs `codebook ARGS…` in-process, collecting stdout and stderr. */
async function codebook(args: string[]) {
  const out: string[] = []
  const err: string[] = []
  const write = { out: process.stdout.write, err: process.stderr.write }
  process.stdout.write = ((s: string) => out.push(s) > 0) as typeof process.stdout.write
  process.stderr.write = ((s: string) => err.push(s) > 0) as typeof process.stderr.write
  try {
    const code = await main(args)
    return { code, stdout: out.join(''), stderr: err.join('') }
  } finally {
    process.stdout.write = write.out
    process.stderr.write = write.err
  }
}

const TINY = ['evaluate', '--images', DIGITS, '--grid', '20x20', '--rows-per-class', '5', '--columns', '4']

describe('codebook evaluate', () => {
  it('--json prints one line per k with a consistent confusion matrix', async () => {
    const { code, stdout } = await codebook([...TINY, '--k', '4,8', '--iterations', '3', '--json'])
    expect(code).toBe(0)
    const lines = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(lines.map((l) => l.k)).toEqual([4, 8])
    for (const l of lines) {
      // 4 columns × 5 rows = 20 digits per class, half of them tested.
      const sums = l.confusion.map((row: number[]) => row.reduce((a, b) => a + b, 0))
      expect(sums).toEqual(new Array(10).fill(10))
      const correct = l.confusion.reduce((s: number, row: number[], c: number) => s + row[c]!, 0)
      expect(l.accuracy).toBeCloseTo(correct / 100, 12)
      expect(l.perClass).toEqual(l.confusion.map((row: number[], c: number) => row[c]! / 10))
    }
  })

  it('prints a k / accuracy table without --json', async () => {
    const { code, stdout } = await codebook([...TINY, '--k', '4', '--iterations', '2'])
    expect(code).toBe(0)
    expect(stdout).toMatch(/200 images in 10 classes, 3200 patches × d 32, 100 train \/ 100 test/)
    expect(stdout).toMatch(/^\s+4 {2}0\.\d{4}/m)
  })

  it('exits 2 with a coded message on bad input', async () => {
    const cases: [string[], string][] = [
      [
        ['evaluate', '--images', `${DIGITS}.missing`, '--grid', '20x20', '--rows-per-class', '5', '--k', '4'],
        'FILE_NOT_FOUND',
      ],
      [['evaluate', '--images', DIGITS, '--grid', '20x20', '--k', '4'], 'BAD_USAGE'],
      [
        ['evaluate', '--images', DIGITS, '--grid', '30x20', '--rows-per-class', '5', '--k', '4'],
        'GRID_MISMATCH',
      ],
      [[...TINY, '--k', '4,x'], 'BAD_OPTION'],
      [[...TINY, '--k', '4', '--split', '1.5'], 'BAD_OPTION'],
      [[...TINY, '--k', '4', '--kernel', 'nope'], 'KERNEL_UNKNOWN'],
      [TINY, 'BAD_USAGE'],
      // 100 train digits × 16 patches = 1,600 train patches: k = 5,000 cannot be learned.
      [[...TINY, '--k', '5000', '--iterations', '1'], 'KMEANS_BAD_K'],
    ]
    for (const [args, codeName] of cases) {
      const { code, stderr } = await codebook(args)
      expect({ args, code }).toEqual({ args, code: 2 })
      expect(stderr).toContain(codeName)
    }
  })

  it('--vocabulary FILE.npy evaluates given centroids, and refuses a wrong d with VOCABULARY_DIMENSION_MISMATCH', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'codebook-cli-vocabulary-'))
    try {
      // Any 4 × 32 centroids encode the 32-d HOG patches (equality with learned ones: evaluate.test.ts).
      const centroids = new Float32Array(4 * 32).map((_, i) => ((i * 7) % 13) / 13)
      const good = join(dir, 'good.npy')
      await writeNpy(good, centroids, 4, 32)
      const { code, stdout } = await codebook([...TINY, '--vocabulary', good, '--json'])
      expect(code).toBe(0)
      const [line] = stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
      expect(line).toMatchObject({ k: 4, label: good, iterations: 0, trainImages: 100, testImages: 100 })

      const wide = join(dir, 'wide.npy')
      await writeNpy(wide, new Float32Array(4 * 36), 4, 36)
      const bad = await codebook([...TINY, '--k', '4', '--vocabulary', `${good},${wide}`])
      expect(bad.code).toBe(2)
      expect(bad.stderr).toContain('VOCABULARY_DIMENSION_MISMATCH')
      expect(bad.stderr).toContain('patch 8, cell 4, bins 9')
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
