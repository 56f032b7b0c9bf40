import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openVectorReader } from './readers.ts'
import { inspectFile } from './store.ts'
import { expectFormatError, makeTempDir, seededRows, vecsBytes } from './test-support/fixtures.ts'

let dir: string
let cleanup: () => Promise<void>
beforeAll(async () => ({ dir, cleanup } = await makeTempDir()))
afterAll(() => cleanup())

async function write(name: string, content: Buffer): Promise<string> {
  const file = join(dir, name)
  await writeFile(file, content)
  return file
}

async function readAll(file: string) {
  const reader = await openVectorReader(file)
  const values: number[] = []
  let d = 0
  let batches = 0
  for await (const b of reader.batches()) {
    d = b.d
    batches++
    for (const v of b.values) values.push(v)
  }
  return { d, values, dtype: reader.dtype(), format: reader.format, batches }
}

describe('.fvecs / .bvecs', () => {
  it('reads fvecs written with DataView, across read chunks and gzipped', async () => {
    // 3000 rows × 100 float32 ≈ 1.2 MB: rows straddle the 1 MB chunks.
    const rows = seededRows(3000, 100, 5)
    const expected = rows.flat()
    for (const [name, bytes] of [
      ['a.fvecs', vecsBytes(rows, 'fvecs')],
      ['a.fvecs.gz', gzipSync(vecsBytes(rows, 'fvecs'))],
    ] as const) {
      const r = await readAll(await write(name, bytes))
      expect([r.d, r.dtype, r.format]).toEqual([100, 'float32', 'fvecs'])
      expect(r.batches).toBeGreaterThan(1)
      expect(r.values.length).toBe(expected.length)
      expect(r.values.filter((v, i) => v !== expected[i]).length).toBe(0)
    }
  })

  it('reads bvecs as uint8, including d = 1', async () => {
    const r = await readAll(
      await write(
        'b.bvecs',
        vecsBytes(
          [
            [0, 255, 3],
            [4, 5, 6],
          ],
          'bvecs',
        ),
      ),
    )
    expect(r).toMatchObject({ d: 3, values: [0, 255, 3, 4, 5, 6], dtype: 'uint8', format: 'bvecs' })
    const one = await readAll(await write('one.bvecs', vecsBytes([[9], [8]], 'bvecs')))
    expect(one).toMatchObject({ d: 1, values: [9, 8] })
  })

  it('rejects a row with another dimension, naming the row', async () => {
    const file = await write(
      'inc.fvecs',
      vecsBytes(
        [
          [1, 2],
          [3, 4],
          [5, 6, 7],
          [8, 9],
        ],
        'fvecs',
      ),
    )
    await expectFormatError(inspectFile(file), 'INCONSISTENT_DIMENSION', { file, row: 2 })
  })

  it('rejects a file ending inside a row', async () => {
    const bytes = vecsBytes(
      [
        [1, 2],
        [3, 4],
        [5, 6],
      ],
      'fvecs',
    )
    const file = await write('tr.fvecs', bytes.subarray(0, bytes.length - 2))
    await expectFormatError(inspectFile(file), 'TRUNCATED_BINARY', { file, row: 2 })
  })

  it('rejects NaN in fvecs, an impossible first dimension and an empty file', async () => {
    const nan = await write(
      'nan.fvecs',
      vecsBytes(
        [
          [1, 2],
          [Number.POSITIVE_INFINITY, 4],
        ],
        'fvecs',
      ),
    )
    await expectFormatError(inspectFile(nan), 'NON_FINITE_VALUE', { file: nan, row: 1 })
    const neg = Buffer.alloc(8)
    neg.writeInt32LE(-3, 0)
    const bad = await write('neg.bvecs', neg)
    await expectFormatError(inspectFile(bad), 'BAD_HEADER', { file: bad, row: 0 })
    const empty = await write('e.bvecs', Buffer.alloc(0))
    await expectFormatError(inspectFile(empty), 'EMPTY_INPUT', { file: empty })
  })
})
