import { readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { VectorStats } from '@codebook/shared'
import { VectorStats as VectorStatsSchema } from '@codebook/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CodebookError } from '../errors.ts'
import { datasetErrorCodes } from './error-codes.ts'
import type { ImportProgress } from './store.ts'
import { convertToNpy, importToStore, inspectFile, readStoredRows } from './store.ts'
import { expectFormatError, makeTempDir, npyBytes, seededRows, vecsBytes } from './test-support/fixtures.ts'

let dir: string
let cleanup: () => Promise<void>
beforeAll(async () => ({ dir, cleanup } = await makeTempDir()))
afterAll(() => cleanup())

async function write(name: string, content: string | Buffer): Promise<string> {
  const file = join(dir, name)
  await writeFile(file, content)
  return file
}

/** Brute-force reference: per-dimension min/max/mean and sorted norms, straight from the rows. */
function bruteStats(rows: number[][]) {
  const d = rows[0].length
  const col = (j: number) => rows.map((r) => r[j])
  const norms = rows.map((r) => Math.sqrt(r.reduce((s, v) => s + v * v, 0))).sort((a, b) => a - b)
  const q = (p: number) => {
    const pos = p * (norms.length - 1)
    const lo = Math.floor(pos)
    const hi = Math.min(lo + 1, norms.length - 1)
    return norms[lo] + (norms[hi] - norms[lo]) * (pos - lo)
  }
  return {
    min: Array.from({ length: d }, (_, j) => Math.min(...col(j))),
    max: Array.from({ length: d }, (_, j) => Math.max(...col(j))),
    mean: Array.from({ length: d }, (_, j) => col(j).reduce((a, b) => a + b, 0) / rows.length),
    norms,
    q,
  }
}

function expectStatsMatch(stats: VectorStats, rows: number[][]): void {
  const ref = bruteStats(rows)
  expect(VectorStatsSchema.parse(stats)).toEqual(stats)
  expect(stats.n).toBe(rows.length)
  expect(stats.d).toBe(rows[0].length)
  expect(stats.dims.min).toEqual(ref.min)
  expect(stats.dims.max).toEqual(ref.max)
  for (const [j, m] of stats.dims.mean.entries()) expect(m).toBeCloseTo(ref.mean[j], 9)
  for (const { q, value } of stats.norms.quantiles) expect(value).toBeCloseTo(ref.q(q), 5)
  const { edges, counts } = stats.norms.histogram
  expect(edges.length).toBe(33)
  expect(counts.reduce((a, b) => a + b, 0)).toBe(rows.length)
  // Each norm falls in the bin whose edges surround it (last bin closed).
  const expected = new Array(32).fill(0)
  for (const x of ref.norms) {
    const i = edges.findIndex((e, k) => k < 32 && x >= e - 1e-6 && (x < edges[k + 1] - 1e-6 || k === 31))
    expected[i]++
  }
  expect(counts).toEqual(expected)
}

describe('importToStore', () => {
  it('stores HOG text as vectors.npy + ids.npy, with stats matching brute force', async () => {
    const rows = seededRows(500, 7, 21)
    const text = rows.map((r, i) => `${i} ${i * 2} ${i * 3} ${r.join(' ')}`).join('\n')
    const src = await write('s.txt', text)
    const dest = join(dir, 'store-hog')
    const progress: ImportProgress[] = []
    const stats = await importToStore(src, dest, { onProgress: (p) => progress.push(p) })
    expect(stats).toMatchObject({
      format: 'hog-text',
      dtype: 'float32',
      hasIds: true,
      bytes: Buffer.byteLength(text),
    })
    expectStatsMatch(stats, rows)
    expect((await readdir(dest)).sort()).toEqual(['ids.npy', 'vectors.npy'])
    expect(progress.at(-1)).toEqual({ bytesRead: stats.bytes, totalBytes: stats.bytes, rows: 500 })
    const part = await readStoredRows(dest, 498, 10)
    expect(part.n).toBe(500)
    expect(part.d).toBe(7)
    expect(Array.from(part.values)).toEqual([...rows[498], ...rows[499]])
    expect(Array.from(part.ids ?? [])).toEqual([498, 996, 1494, 499, 998, 1497])
  })

  it('keeps npy uint8, stores no ids, and widens to float32 on request', async () => {
    const rows = [
      [0, 10, 255],
      [3, 4, 5],
    ]
    const src = await write(
      'u.npy',
      npyBytes(Uint8Array.from(rows.flat()), { descr: '|u1', shape: '(2, 3)' }),
    )
    const a = await importToStore(src, join(dir, 'store-u8'))
    expect(a.dtype).toBe('uint8')
    expectStatsMatch(a, rows)
    const u8 = await readStoredRows(join(dir, 'store-u8'), 0, 2)
    expect(u8.values).toBeInstanceOf(Uint8Array)
    expect(u8.ids).toBeNull()
    expect(await readdir(join(dir, 'store-u8'))).toEqual(['vectors.npy'])
    await importToStore(src, join(dir, 'store-f32'), { dtype: 'float32' })
    const f = await readStoredRows(join(dir, 'store-f32'), 1, 1)
    expect(f.values).toEqual(Float32Array.from([3, 4, 5]))
  })

  it('narrows integral float data to uint8 and refuses anything else with VALUE_OUT_OF_RANGE', async () => {
    const ok = await write(
      'ok.fvecs',
      vecsBytes(
        [
          [0, 255],
          [7, 8],
        ],
        'fvecs',
      ),
    )
    expect((await importToStore(ok, join(dir, 'store-narrow'), { dtype: 'uint8' })).dtype).toBe('uint8')
    expect((await readStoredRows(join(dir, 'store-narrow'), 0, 2)).values).toEqual(
      Uint8Array.from([0, 255, 7, 8]),
    )
    const frac = await write(
      'frac.fvecs',
      vecsBytes(
        [
          [0, 1],
          [2.5, 3],
        ],
        'fvecs',
      ),
    )
    await expectFormatError(
      importToStore(frac, join(dir, 'store-frac'), { dtype: 'uint8' }),
      'VALUE_OUT_OF_RANGE',
      { file: frac, row: 1 },
    )
    const big = await write('big.txt', '0 0 0 1 2\n0 0 1 256 0\n')
    await expectFormatError(
      importToStore(big, join(dir, 'store-big'), { dtype: 'uint8' }),
      'VALUE_OUT_OF_RANGE',
      { file: big, line: 2 },
    )
  })

  it('accepts values at the float32 extremes: norms, means and histogram stay finite (float64)', async () => {
    const max = 3.4028234663852886e38
    const rows = [
      [3e38, -3e38],
      [-3e38, 3e38],
      [max, max],
      [1, 2],
    ]
    const src = await write('extremes.csv', `${rows.map((r) => r.join(',')).join('\n')}\n`)
    const stats = await importToStore(src, join(dir, 'store-extremes'))
    // The stats survive JSON (an Infinity would become null) and the shared schema.
    expect(VectorStatsSchema.parse(JSON.parse(JSON.stringify(stats)))).toEqual(stats)
    expect(stats.dims.max).toEqual([max, max])
    expect(stats.norms.quantiles.at(-1)?.value).toBeCloseTo(Math.SQRT2 * max, -30)
    expect(stats.norms.histogram.edges.every(Number.isFinite)).toBe(true)
    expect(stats.norms.histogram.counts.reduce((a, b) => a + b, 0)).toBe(4)
    // Past float32's range a value is refused with a code naming its line.
    const over = await write('over.csv', '1,2\n3e38,4e38\n')
    await expectFormatError(importToStore(over, join(dir, 'store-over')), 'NON_FINITE_VALUE', {
      file: over,
      line: 2,
    })
  })

  it('leaves neither destDir nor a temp dir behind when the input is bad late in the file', async () => {
    const good = '1 2 3 0.5 0.5\n'.repeat(20000)
    const src = await write('late.txt', `${good}1 2 3 0.5 oops\n`)
    const before = await readdir(dir)
    await expectFormatError(importToStore(src, join(dir, 'store-late')), 'NON_NUMERIC_FIELD', {
      file: src,
      line: 20001,
    })
    expect(await readdir(dir)).toEqual(before)
  })

  it('leaves nothing behind when aborted', async () => {
    const src = await write('abort.csv', '1,2\n'.repeat(10))
    const before = await readdir(dir)
    const controller = new AbortController()
    controller.abort(new Error('stop'))
    await expect(importToStore(src, join(dir, 'store-abort'), { signal: controller.signal })).rejects.toThrow(
      'stop',
    )
    expect(await readdir(dir)).toEqual(before)
  })

  it('refuses an existing destination', async () => {
    const src = await write('x.csv', '1,2\n')
    await importToStore(src, join(dir, 'store-x'))
    const err = await importToStore(src, join(dir, 'store-x')).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(CodebookError)
    expect((err as CodebookError).code).toBe('DESTINATION_EXISTS')
  })
})

describe('inspectFile and convertToNpy', () => {
  it('inspects every format to the same stats for the same rows', async () => {
    const rows = seededRows(60, 4, 9)
    const files = [
      await write('same.txt', rows.map((r, i) => `${i} 0 0 ${r.join(' ')}`).join('\n')),
      await write('same.csv', `a,b,c,d\n${rows.map((r) => r.join(',')).join('\n')}\n`),
      await write(
        'same.npy',
        npyBytes(new Uint8Array(Float32Array.from(rows.flat()).buffer), { descr: '<f4', shape: '(60, 4)' }),
      ),
      await write('same.fvecs', vecsBytes(rows, 'fvecs')),
    ]
    for (const f of files) {
      const s = await inspectFile(f)
      expectStatsMatch(s, rows)
    }
    expect(await readdir(dir)).not.toContain('same.npy.tmp')
  })

  it('converts HOG text to OUT.npy + OUT.ids.npy and removes a stale ids file for id-less input', async () => {
    const src = await write('c.txt', '5 6 7 1 2\n8 9 10 3 4\n')
    const out = join(dir, 'conv.npy')
    const r = await convertToNpy(src, out)
    expect(r.idsFile).toBe(join(dir, 'conv.ids.npy'))
    const csv = await write('c.csv', '1,2\n')
    expect((await convertToNpy(csv, out)).idsFile).toBeNull()
    expect((await readdir(dir)).filter((f) => f.startsWith('conv'))).toEqual(['conv.npy'])
  })

  it('documents every code it throws', () => {
    for (const code of [
      'WRONG_FIELD_COUNT',
      'NON_NUMERIC_FIELD',
      'NON_FINITE_VALUE',
      'INCONSISTENT_DIMENSION',
      'TRUNCATED_BINARY',
      'BAD_HEADER',
      'UNSUPPORTED_DTYPE',
      'EMPTY_INPUT',
      'UNKNOWN_FORMAT',
      'BAD_GZIP',
      'FILE_NOT_FOUND',
      'VALUE_OUT_OF_RANGE',
    ]) {
      expect(datasetErrorCodes[code], code).toMatch(/\w/)
    }
  })
})
