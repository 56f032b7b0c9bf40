// Test helpers: temporary directories, an independent .npy/.vecs writer (built from NumPy's
// documented layout, not from the library's writer) and a coded-error assertion.
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect } from 'vitest'
import { DatasetFormatError } from '../../errors.ts'
import { createRng } from '../../random/rng.ts'
import { openVectorReader } from '../readers.ts'

/** A fresh temporary directory and its cleanup. */
export async function makeTempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'codebook-formats-'))
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) }
}

/** A temporary directory for the calling test file (made before all tests, removed after), and a writer into it. */
export function useTempDir(): {
  dir: () => string
  write: (name: string, content: string | Uint8Array) => Promise<string>
} {
  let dir = ''
  let cleanup = async () => {}
  beforeAll(async () => ({ dir, cleanup } = await makeTempDir()))
  afterAll(() => cleanup())
  return {
    dir: () => dir,
    write: async (name, content) => {
      const file = join(dir, name)
      await writeFile(file, content)
      return file
    },
  }
}

/** Every row of `file` through the streaming reader (format detected), with its dtype and notes. */
export async function readAllRows(
  file: string,
): Promise<{ d: number; values: number[]; dtype: string; notes: string[] }> {
  const reader = await openVectorReader(file)
  const values: number[] = []
  let d = 0
  for await (const b of reader.batches()) {
    d = b.d
    for (const v of b.values) values.push(v)
  }
  return { d, values, dtype: reader.dtype(), notes: reader.notes }
}

/** Everything in `dir` (to prove that nothing, not even a temp file, was left behind). */
export async function listDir(dir: string): Promise<string[]> {
  return (await readdir(dir)).sort()
}

/**
 * .npy bytes by NumPy's documented rules: magic, version, little-endian header length (uint16 for
 * 1.0, uint32 for 2.0/3.0), a dict literal padded with spaces and a final newline so the whole
 * header is a multiple of 64 bytes, then the raw little-endian data.
 */
export function npyBytes(
  data: Uint8Array,
  opts: { descr: string; shape: string; version?: 1 | 2 | 3; fortran?: boolean; dict?: string },
): Buffer {
  const version = opts.version ?? 1
  const dict =
    opts.dict ??
    `{'descr': '${opts.descr}', 'fortran_order': ${opts.fortran ? 'True' : 'False'}, 'shape': ${opts.shape}, }`
  const pre = version === 1 ? 10 : 12
  const total = Math.ceil((pre + dict.length + 1) / 64) * 64
  const header = Buffer.alloc(total, 0x20)
  Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, version, 0]).copy(header, 0)
  if (version === 1) header.writeUInt16LE(total - pre, 8)
  else header.writeUInt32LE(total - pre, 8)
  header.write(dict, pre, 'latin1')
  header[total - 1] = 0x0a
  return Buffer.concat([header, Buffer.from(data.buffer, data.byteOffset, data.byteLength)])
}

/** .fvecs (float32) or .bvecs (uint8) bytes written with DataView: per row an int32 LE dimension, then the values. */
export function vecsBytes(rows: number[][], kind: 'fvecs' | 'bvecs'): Buffer {
  const item = kind === 'fvecs' ? 4 : 1
  const size = rows.reduce((s, r) => s + 4 + r.length * item, 0)
  const view = new DataView(new ArrayBuffer(size))
  let off = 0
  for (const r of rows) {
    view.setInt32(off, r.length, true)
    off += 4
    for (const v of r) {
      if (kind === 'fvecs') view.setFloat32(off, v, true)
      else view.setUint8(off, v)
      off += item
    }
  }
  return Buffer.from(view.buffer)
}

/** Seeded rows of float32-representable values in [-2, 2) with 4 decimals. */
export function seededRows(n: number, d: number, seed: number): number[][] {
  const rng = createRng(seed)
  return Array.from({ length: n }, () =>
    Array.from({ length: d }, () => Math.fround((rng.int(40000) - 20000) / 10000)),
  )
}

/** Asserts `p` rejects with a DatasetFormatError of `code` located at `where` (and says so in its message). */
export async function expectFormatError(
  p: Promise<unknown>,
  code: string,
  where: { file: string; line?: number; row?: number },
): Promise<DatasetFormatError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(DatasetFormatError)
  const e = err as DatasetFormatError
  expect(e.code).toBe(code)
  expect(e.file).toBe(where.file)
  expect(e.message).toContain(where.file)
  expect(e.line).toBe(where.line)
  expect(e.row).toBe(where.row)
  if (where.line !== undefined) expect(e.message).toContain(`line ${where.line}:`)
  if (where.row !== undefined) expect(e.message).toContain(`row ${where.row}:`)
  return e
}
