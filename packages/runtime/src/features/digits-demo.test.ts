import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadGridImages } from '../images/grid.ts'
import { buildDigitsDemo, digitLabel } from './digits-demo.ts'
import { denseHog } from './hog.ts'

const DIGITS = fileURLToPath(new URL('../../../../data/digits.png', import.meta.url))

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'codebook-digits-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('buildDigitsDemo', () => {
  it('writes 80,000 gzipped HOG text lines of 3 ids + 32 values, matching denseHog of each digit', async () => {
    const out = join(dir, 'digits.txt.gz')
    expect(await buildDigitsDemo(DIGITS, out)).toEqual({ n: 80_000, d: 32 })
    expect(await readdir(dir)).toEqual(['digits.txt.gz']) // no temporary left behind

    // Read back with zlib and split by hand, independently of the runtime's readers.
    const lines = gunzipSync(await readFile(out))
      .toString('latin1')
      .split('\n')
    expect(lines.pop()).toBe('') // the file ends with a newline
    expect(lines.length).toBe(80_000)
    const offsets = [0, 4, 8, 12]
    lines.forEach((line, k) => {
      const fields = line.split(' ')
      if (fields.length !== 35) throw new Error(`line ${k + 1}: ${fields.length} fields`)
      const picture = Math.floor(k / 16)
      const patch = k % 16
      const ids = fields.slice(0, 3).map(Number)
      if (ids[0] !== picture || ids[1] !== offsets[patch >> 2] || ids[2] !== offsets[patch & 3]) {
        throw new Error(
          `line ${k + 1}: ids ${ids}, expected ${[picture, offsets[patch >> 2], offsets[patch & 3]]}`,
        )
      }
    })

    // Values of a few digits (one per end of the grid, one in the middle) against denseHog directly.
    const { images } = await loadGridImages(DIGITS, { cellWidth: 20, cellHeight: 20, rowsPerClass: 5 })
    expect(images.every((im) => digitLabel(im.id) === im.label)).toBe(true)
    for (const picture of [0, 2537, 4999]) {
      const { vectors } = denseHog(images[picture], { patch: 8, stride: 4, cell: 4, bins: 8 })
      for (let p = 0; p < 16; p++) {
        const values = lines[picture * 16 + p].split(' ').slice(3).map(Number)
        const expected = Array.from(vectors.subarray(p * 32, (p + 1) * 32))
        for (let j = 0; j < 32; j++) expect(Math.fround(values[j])).toBe(expected[j])
      }
    }
  })

  it('honours the HOG parameters (patch 12, stride 8, cell 6, bins 5: 4 patches × 20 per digit) and writes plain text', async () => {
    const out = join(dir, 'digits-12.txt')
    // c = 12 / 6 = 2 cells per side: (2 − 2 + 1)² blocks × 4 cells × 5 bins = 20; patches at 0 and 8.
    expect(await buildDigitsDemo(DIGITS, out, { patch: 12, stride: 8, cell: 6, bins: 5 })).toEqual({
      n: 20_000,
      d: 20,
    })
    const text = await readFile(out, 'latin1')
    expect(text.startsWith('0 0 0 ')).toBe(true)
    const lines = text.trimEnd().split('\n')
    expect(lines.length).toBe(20_000)
    expect(lines[3].split(' ').slice(0, 3)).toEqual(['0', '8', '8'])
    expect(lines[lines.length - 1].split(' ').slice(0, 3)).toEqual(['4999', '8', '8'])
    expect(lines.every((l) => l.split(' ').length === 23)).toBe(true)
  })
})
