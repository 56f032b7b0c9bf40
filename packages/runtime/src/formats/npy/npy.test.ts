import { spawnSync } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { inspectFile, openNpy } from '../store.ts'
import { expectFormatError, listDir, makeTempDir, npyBytes, readAllRows } from '../test-support/fixtures.ts'
import { writeNpy } from './npy-writer.ts'

let dir: string
let cleanup: () => Promise<void>
beforeAll(async () => ({ dir, cleanup } = await makeTempDir()))
afterAll(() => cleanup())

async function write(name: string, content: Buffer): Promise<string> {
  const file = join(dir, name)
  await writeFile(file, content)
  return file
}

/** Rows, d and dtype of `file` as the streaming reader yields them. */
async function readAll(file: string): Promise<{ d: number; values: number[]; dtype: string }> {
  const { d, values, dtype } = await readAllRows(file)
  return { d, values, dtype }
}

const f32 = (xs: number[]) => new Uint8Array(Float32Array.from(xs).buffer)

describe('npy reading (hand-written files)', () => {
  it('reads float32 with version 1.0, 2.0 and 3.0 headers', async () => {
    const data = [1.5, -2, 3.25, 4, 5, 6]
    for (const version of [1, 2, 3] as const) {
      const file = await write(
        `v${version}.npy`,
        npyBytes(f32(data), { descr: '<f4', shape: '(2, 3)', version }),
      )
      expect(await readAll(file)).toEqual({ d: 3, values: data, dtype: 'float32' })
    }
  })

  it('reads uint8, d = 1, extra header padding, key order and a gzipped .npy', async () => {
    const u8 = await write(
      'u8.npy',
      npyBytes(Uint8Array.from([0, 7, 255, 1]), { descr: '|u1', shape: '(2, 2)' }),
    )
    expect(await readAll(u8)).toEqual({ d: 2, values: [0, 7, 255, 1], dtype: 'uint8' })
    const d1 = await write('d1.npy', npyBytes(f32([9, 8, 7]), { descr: '<f4', shape: '(3, 1)' }))
    expect(await readAll(d1)).toEqual({ d: 1, values: [9, 8, 7], dtype: 'float32' })
    const dict = `{"shape": (1,2), "fortran_order": False, "descr": "<f4"}${' '.repeat(150)}`
    const padded = await write('pad.npy', npyBytes(f32([1, 2]), { descr: '', shape: '', dict }))
    expect(await readAll(padded)).toEqual({ d: 2, values: [1, 2], dtype: 'float32' })
    const gz = await write('g.npy.gz', gzipSync(npyBytes(f32([3, 4]), { descr: '<f4', shape: '(1, 2)' })))
    expect(await readAll(gz)).toEqual({ d: 2, values: [3, 4], dtype: 'float32' })
  })

  it('opens for random row access', async () => {
    const data = Array.from({ length: 40 }, (_, i) => i / 4)
    const file = await write('ra.npy', npyBytes(f32(data), { descr: '<f4', shape: '(10, 4)', version: 2 }))
    const npy = await openNpy(file)
    try {
      expect([npy.n, npy.d, npy.dtype, npy.headerBytes]).toEqual([10, 4, 'float32', 128])
      expect(Array.from(await npy.readRows(3, 2))).toEqual(data.slice(12, 20))
      expect((await npy.readRows(10, 0)).length).toBe(0)
      await expect(npy.readRows(8, 3)).rejects.toThrow(RangeError)
    } finally {
      await npy.close()
    }
  })

  it('rejects bad magic, non-2-D shapes, a broken dict, a huge header and extra data as BAD_HEADER', async () => {
    const cases: Array<[string, Buffer]> = [
      ['magic.npy', Buffer.concat([Buffer.from('NUMPY!'), Buffer.alloc(120)])],
      ['hugeheader.npy', Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 2, 0, 0, 0, 0, 1, 0x7b])],
      ['oned.npy', npyBytes(f32([1, 2]), { descr: '<f4', shape: '(2,)' })],
      ['threed.npy', npyBytes(f32([1, 2]), { descr: '<f4', shape: '(1, 1, 2)' })],
      ['dict.npy', npyBytes(f32([1, 2]), { descr: '', shape: '', dict: 'hello' })],
      [
        'longer.npy',
        Buffer.concat([npyBytes(f32([1, 2]), { descr: '<f4', shape: '(1, 2)' }), Buffer.alloc(4)]),
      ],
    ]
    for (const [name, bytes] of cases) {
      const file = await write(name, bytes)
      await expectFormatError(inspectFile(file), 'BAD_HEADER', { file })
    }
  })

  it('rejects other dtypes, empty arrays, truncation and NaN with coded errors', async () => {
    for (const descr of ['<i8', '<f2', '|b1', '<c8']) {
      const other = await write('other.npy', npyBytes(new Uint8Array(16), { descr, shape: '(1, 2)' }))
      await expectFormatError(inspectFile(other), 'UNSUPPORTED_DTYPE', { file: other })
    }
    const empty = await write('e.npy', npyBytes(new Uint8Array(0), { descr: '<f4', shape: '(0, 3)' }))
    await expectFormatError(inspectFile(empty), 'EMPTY_INPUT', { file: empty })
    const whole = npyBytes(f32([1, 2, 3, 4, 5, 6]), { descr: '<f4', shape: '(3, 2)' })
    const trunc = await write('t.npy', whole.subarray(0, whole.length - 3))
    await expectFormatError(inspectFile(trunc), 'TRUNCATED_BINARY', { file: trunc, row: 2 })
    await expectFormatError(openNpy(trunc), 'TRUNCATED_BINARY', { file: trunc, row: 2 })
    const nan = await write(
      'nan.npy',
      npyBytes(f32([1, 2, 3, Number.NaN]), { descr: '<f4', shape: '(2, 2)' }),
    )
    await expectFormatError(inspectFile(nan), 'NON_FINITE_VALUE', { file: nan, row: 1 })
  })
})

describe('npy writing', () => {
  it('writes the documented layout: magic, v1.0, header a multiple of 64 ending in \\n, then the data', async () => {
    const file = join(dir, 'w.npy')
    const data = Float32Array.from([1, 2, 3, 4, 5, 6])
    await writeNpy(file, data, 3, 2)
    const bytes = await readFile(file)
    expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]))
    const total = 10 + bytes.readUInt16LE(8)
    expect(total % 64).toBe(0)
    expect(bytes[total - 1]).toBe(0x0a)
    expect(bytes.subarray(10, total).toString('latin1').trim()).toBe(
      "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }",
    )
    expect(
      new Float32Array(bytes.buffer.slice(bytes.byteOffset + total, bytes.byteOffset + bytes.length)),
    ).toEqual(data)
    await writeNpy(join(dir, 'i.npy'), Int32Array.from([-1, 2, 3]), 1, 3)
    expect((await readFile(join(dir, 'i.npy'))).toString('latin1')).toContain("'descr': '<i4'")
    expect((await listDir(dir)).filter((f) => f.includes('.tmp-'))).toEqual([])
  })
})

// numpy is an independent implementation of the format; without it these checks cannot run.
const hasNumpy = spawnSync('python3', ['-c', 'import numpy'], { stdio: 'ignore' }).status === 0

describe.skipIf(!hasNumpy)('npy interop with NumPy (skipped: python3 with numpy not available)', () => {
  it('reads files numpy saved and numpy loads files we wrote', async () => {
    const theirs = join(dir, 'np.npy')
    const ours = join(dir, 'ours.npy')
    await writeNpy(ours, Uint8Array.from([1, 2, 3, 250, 251, 252]), 2, 3)
    const py = spawnSync(
      'python3',
      [
        '-c',
        `import numpy as np, sys
np.save(sys.argv[1], (np.arange(15, dtype=np.float32).reshape(5, 3) / 4))
a = np.load(sys.argv[2]); assert a.dtype == np.uint8 and a.shape == (2, 3) and a.tolist() == [[1, 2, 3], [250, 251, 252]], a`,
        theirs,
        ours,
      ],
      { encoding: 'utf8' },
    )
    expect(py.stderr).toBe('')
    expect(py.status).toBe(0)
    expect(await readAll(theirs)).toEqual({
      d: 3,
      values: Array.from({ length: 15 }, (_, i) => i / 4),
      dtype: 'float32',
    })
  })
})
