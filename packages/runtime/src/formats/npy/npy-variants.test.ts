// Real-world .npy variants: float64, big-endian and Fortran order, written by hand from NumPy's
// documented layout (and, when available, by NumPy itself), read back as float32 rows.
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { importToStore, inspectFile, openNpy, readStoredRows } from '../store.ts'
import { expectFormatError, listDir, npyBytes, readAllRows, useTempDir } from '../test-support/fixtures.ts'

const tmp = useTempDir()
const write = tmp.write
const readAll = readAllRows

/** Elements in the given byte order and width, in the order given (the caller lays out rows or columns). */
function elements(xs: number[], width: 4 | 8, bigEndian: boolean): Uint8Array {
  const view = new DataView(new ArrayBuffer(xs.length * width))
  xs.forEach((x, i) => {
    if (width === 4) view.setFloat32(i * width, x, !bigEndian)
    else view.setFloat64(i * width, x, !bigEndian)
  })
  return new Uint8Array(view.buffer)
}

/** Row-major values of an n × d matrix laid out column by column (Fortran order). */
function columnMajor(rows: number[], n: number, d: number): number[] {
  const out: number[] = []
  for (let j = 0; j < d; j++) for (let r = 0; r < n; r++) out.push(rows[r * d + j])
  return out
}

// 3 × 4 values; float64 ones are chosen so rounding to float32 shows.
const ROWS = [0.1, -2.5, 3, 1e-3, 4.25, 5, -6.75, 7e10, 8, 9.125, -1e-7, 12]
const asF32 = ROWS.map(Math.fround)

describe('npy variants (hand-written)', () => {
  it('reads float64 as float32, big-endian float32/float64 byte-swapped, each with its note', async () => {
    const cases: Array<[string, 4 | 8, boolean, string[]]> = [
      ['<f8', 8, false, ['converted from float64']],
      ['>f4', 4, true, ['byte-swapped from big-endian']],
      ['>f8', 8, true, ['converted from float64', 'byte-swapped from big-endian']],
    ]
    for (const [descr, width, big, notes] of cases) {
      const file = await write('v.npy', npyBytes(elements(ROWS, width, big), { descr, shape: '(3, 4)' }))
      expect(await readAll(file)).toEqual({ d: 4, values: asF32, dtype: 'float32', notes })
    }
  })

  it('transposes Fortran order into rows, plain (from disk) and gzipped (in memory)', async () => {
    for (const [descr, width, big] of [
      ['<f4', 4, false],
      ['>f8', 8, true],
    ] as const) {
      const bytes = npyBytes(elements(columnMajor(ROWS, 3, 4), width, big), {
        descr,
        shape: '(3, 4)',
        fortran: true,
      })
      for (const file of [await write('f.npy', bytes), await write('f.npy.gz', gzipSync(bytes))]) {
        const got = await readAll(file)
        expect(got.values).toEqual(asF32)
        expect(got.d).toBe(4)
        expect(got.notes).toContain('transposed from Fortran order')
      }
    }
  })

  it('transposes a Fortran array of several row blocks and stores it with its notes', async () => {
    // 3,000 × 400 float64 = 9.6 MB: two 8 MiB blocks of rows (2,621 rows, then 379).
    const n = 3000
    const d = 400
    const value = (r: number, j: number) => r * 1000 + j + 0.5
    const data = new DataView(new ArrayBuffer(n * d * 8))
    for (let j = 0; j < d; j++)
      for (let r = 0; r < n; r++) data.setFloat64((j * n + r) * 8, value(r, j), true)
    const file = await write(
      'big-f.npy',
      npyBytes(new Uint8Array(data.buffer), { descr: '<f8', shape: `(${n}, ${d})`, fortran: true }),
    )
    const dest = join(tmp.dir(), 'big-store')
    const stats = await importToStore(file, dest)
    expect(stats).toMatchObject({ n, d, dtype: 'float32' })
    expect(stats.notes).toEqual(['converted from float64', 'transposed from Fortran order'])
    for (const r of [0, 1, 2620, 2621, 2999]) {
      const got = await readStoredRows(dest, r, 1)
      expect(Array.from(got.values)).toEqual(Array.from({ length: d }, (_, j) => Math.fround(value(r, j))))
    }
    // Progress counts the blocks read from disk; an abort after the first block leaves nothing.
    const fractions: number[] = []
    const abort = new AbortController()
    const aborted = importToStore(file, join(tmp.dir(), 'aborted-store'), {
      signal: abort.signal,
      onProgress: (p) => {
        fractions.push(p.bytesRead / p.totalBytes)
        abort.abort(new Error('stop'))
      },
    })
    await expect(aborted).rejects.toThrow('stop')
    expect(fractions[0]).toBeGreaterThan(0.85)
    expect(fractions[0]).toBeLessThan(0.9)
    expect((await listDir(tmp.dir())).filter((f) => f.includes('aborted') || f.includes('.tmp-'))).toEqual([])
  })

  it('treats a Fortran single row or column as the C-order array it is (no note)', async () => {
    const row = await write(
      'row.npy',
      npyBytes(elements([1, 2, 3], 4, false), { descr: '<f4', shape: '(1, 3)', fortran: true }),
    )
    expect(await readAll(row)).toEqual({ d: 3, values: [1, 2, 3], dtype: 'float32', notes: [] })
  })

  it('refuses a float64 beyond float32, a truncated or over-long Fortran file and a huge gzipped one', async () => {
    const big = await write(
      'huge.npy',
      npyBytes(elements([1, 2, 1e300, 4], 8, false), { descr: '<f8', shape: '(2, 2)' }),
    )
    const e = await expectFormatError(inspectFile(big), 'NON_FINITE_VALUE', { file: big, row: 1 })
    expect(e.message).toContain('overflows float32')
    const fortran = npyBytes(elements(columnMajor(ROWS, 3, 4), 4, false), {
      descr: '<f4',
      shape: '(3, 4)',
      fortran: true,
    })
    // Cut inside the last column after its first element: rows 1 and 2 miss it.
    const cut = await write('cut.npy', fortran.subarray(0, fortran.length - 8))
    await expectFormatError(inspectFile(cut), 'TRUNCATED_BINARY', { file: cut, row: 1 })
    const cutGz = await write('cut.npy.gz', gzipSync(fortran.subarray(0, fortran.length - 8)))
    await expectFormatError(inspectFile(cutGz), 'TRUNCATED_BINARY', { file: cutGz, row: 1 })
    // Cut in an earlier column: every row misses its last value, so the first bad row is 0.
    const early = await write('early.npy', fortran.subarray(0, fortran.length - 20))
    await expectFormatError(inspectFile(early), 'TRUNCATED_BINARY', { file: early, row: 0 })
    const longer = await write('longer.npy', Buffer.concat([fortran, Buffer.alloc(4)]))
    await expectFormatError(inspectFile(longer), 'BAD_HEADER', { file: longer })
    const longerGz = await write('longer.npy.gz', gzipSync(Buffer.concat([fortran, Buffer.alloc(4)])))
    await expectFormatError(inspectFile(longerGz), 'BAD_HEADER', { file: longerGz })
    // 100,000 × 1,000 float32 = 400 MB declared: refused before a data byte is held.
    const hugeGz = await write(
      'hugef.npy.gz',
      gzipSync(npyBytes(new Uint8Array(64), { descr: '<f4', shape: '(100000, 1000)', fortran: true })),
    )
    await expectFormatError(inspectFile(hugeGz), 'TRANSPOSE_TOO_LARGE', { file: hugeGz })
    expect((await listDir(tmp.dir())).filter((f) => f.includes('.tmp-'))).toEqual([])
  })

  it('keeps the random-access reader of stored files strict (C order, little-endian)', async () => {
    const f = await write(
      'strict.npy',
      npyBytes(elements(ROWS, 4, false), { descr: '<f4', shape: '(3, 4)', fortran: true }),
    )
    await expectFormatError(openNpy(f), 'BAD_HEADER', { file: f })
    const be = await write(
      'strict-be.npy',
      npyBytes(elements(ROWS, 4, true), { descr: '>f4', shape: '(3, 4)' }),
    )
    await expectFormatError(openNpy(be), 'UNSUPPORTED_DTYPE', { file: be })
  })
})

// NumPy is an independent writer of these variants; without it this check cannot run.
const hasNumpy = spawnSync('python3', ['-c', 'import numpy'], { stdio: 'ignore' }).status === 0

describe.skipIf(!hasNumpy)('npy variants NumPy saved (skipped: python3 with numpy not available)', () => {
  it('reads float64, big-endian and Fortran-order arrays as NumPy sees them', async () => {
    const script = `import numpy as np, sys
a = (np.arange(35, dtype=np.float64).reshape(7, 5) - 11) / 3
np.save(sys.argv[1] + '/np-f8.npy', a)
np.save(sys.argv[1] + '/np-be.npy', a.astype('>f4'))
np.save(sys.argv[1] + '/np-fortran.npy', np.asfortranarray(a.astype('>f8')))
assert np.load(sys.argv[1] + '/np-fortran.npy').flags.f_contiguous`
    const py = spawnSync('python3', ['-c', script, tmp.dir()], { encoding: 'utf8' })
    expect(py.stderr).toBe('')
    const expected = Array.from({ length: 35 }, (_, i) => Math.fround((i - 11) / 3))
    for (const name of ['np-f8.npy', 'np-be.npy', 'np-fortran.npy']) {
      const got = await readAll(join(tmp.dir(), name))
      expect(got.d).toBe(5)
      expect(got.values).toEqual(expected)
    }
  })
})
