import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { VectorStats } from '@codebook/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makeTempDir, seededRows } from '../../formats/test-support/fixtures.ts'
import { main } from '../main.ts'
import type { CommandIo } from '../progress.ts'
import { runConvert } from './convert.ts'
import { runInspect } from './inspect.ts'

let dir: string
let cleanup: () => Promise<void>
beforeAll(async () => ({ dir, cleanup } = await makeTempDir()))
afterAll(() => cleanup())

/** Streams that collect what a command writes; stderr is a pipe (not a TTY), so no progress bar. */
function collectingIo(): CommandIo & { out: () => string; err: () => string } {
  let out = ''
  let err = ''
  const stderr = new PassThrough()
  stderr.on('data', (c: Buffer) => {
    err += c.toString()
  })
  return { stdout: { write: (s: string) => (out += s) }, stderr, out: () => out, err: () => err }
}

/** The float32 matrix in a .npy written by convert, parsed by hand from NumPy's documented layout. */
async function readNpyByHand(file: string): Promise<{ dict: string; data: Buffer }> {
  const bytes = await readFile(file)
  const total = 10 + bytes.readUInt16LE(8)
  return { dict: bytes.subarray(10, total).toString('latin1').trim(), data: bytes.subarray(total) }
}

describe('codebook inspect', () => {
  it('prints a text report, and with --json the full VectorStats', async () => {
    const rows = seededRows(20, 40, 4)
    const file = join(dir, 'wide.txt')
    await writeFile(file, rows.map((r, i) => `${i} 1 2 ${r.join(' ')}`).join('\n'))
    const io = collectingIo()
    await runInspect(file, {}, io)
    const text = io.out()
    expect(text).toContain('format   hog-text')
    expect(text).toContain('rows     20')
    expect(text).toContain('dims     40')
    expect(text).toContain('(24 more; --json prints all)')
    expect(text).toContain('q0.5=')
    expect(io.err()).toBe('')
    const json = collectingIo()
    await runInspect(file, { json: true }, json)
    const stats = VectorStats.parse(JSON.parse(json.out()))
    expect(stats.dims.max.length).toBe(40)
    expect(stats.dims.max[39]).toBe(Math.max(...rows.map((r) => r[39])))
  })

  it('prints what the import converted (notes), and no notes line when nothing was', async () => {
    const file = join(dir, 'bom.csv')
    await writeFile(file, '\ufeffx,y\n1,2\n')
    const io = collectingIo()
    await runInspect(file, {}, io)
    expect(io.out()).toContain('notes    skipped a UTF-8 byte-order mark\n')
    await writeFile(file, 'x,y\n1,2\n')
    const plain = collectingIo()
    await runInspect(file, {}, plain)
    expect(plain.out()).not.toContain('notes')
  })
})

describe('codebook convert', () => {
  it('writes OUT.npy and OUT.ids.npy and prints a one-line summary', async () => {
    const file = join(dir, 'in.txt')
    await writeFile(file, '1 2 3 0.5 1\n4 5 6 2 3\n')
    const out = join(dir, 'out.npy')
    const io = collectingIo()
    const r = await runConvert(file, out, {}, io)
    expect(r.idsFile).toBe(join(dir, 'out.ids.npy'))
    expect(io.out()).toMatch(
      /^converted 2 rows × 2 \(hog-text → float32\) to .*out\.npy \+ .*out\.ids\.npy in [\d.]+ s, [\d.]+ MB\/s\n$/,
    )
    const v = await readNpyByHand(out)
    expect(v.dict).toBe("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }")
    expect(Array.from(new Float32Array(v.data.buffer.slice(v.data.byteOffset)))).toEqual([0.5, 1, 2, 3])
    const ids = await readNpyByHand(join(dir, 'out.ids.npy'))
    expect(ids.dict).toBe("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }")
    expect(Array.from(new Int32Array(ids.data.buffer.slice(ids.data.byteOffset)))).toEqual([1, 2, 3, 4, 5, 6])
  })

  it('runs through main(): 0 on success, 2 on bad input and on a bad --dtype, and leaves no output on failure', async () => {
    const csv = join(dir, 'm.csv')
    await writeFile(csv, '1,2\n3,4.5\n')
    const out = join(dir, 'm.npy')
    expect(await main(['convert', csv, out, '--dtype', 'float32'])).toBe(0)
    expect((await readdir(dir)).filter((f) => f.startsWith('m.'))).toEqual(['m.csv', 'm.npy'])
    const before = await readdir(dir)
    expect(await main(['convert', csv, join(dir, 'u.npy'), '--dtype', 'uint8'])).toBe(2)
    expect(await main(['convert', csv, join(dir, 'u.npy'), '--dtype', 'int64'])).toBe(2)
    expect(await readdir(dir)).toEqual(before)
  })

  it('passes --max-line-bytes, --max-fields and --max-expanded-bytes to the reader and prints the error code', () => {
    const entry = fileURLToPath(new URL('../entry.ts', import.meta.url))
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, ['--conditions=@codebook/source', '--import', 'tsx', entry, ...args], {
        encoding: 'utf8',
        timeout: 60_000,
      })
    const file = join(dir, 'limits.csv')
    const gz = join(dir, 'limits.csv.gz')
    writeFileSync(file, '1,2,3,4\n5,6,7,8\n')
    writeFileSync(gz, gzipSync('1,2,3,4\n'.repeat(1000)))
    const cases: Array<[string[], string]> = [
      [['inspect', file, '--max-line-bytes', '4'], 'LINE_TOO_LONG'],
      [['inspect', file, '--max-fields', '3'], 'TOO_MANY_FIELDS'],
      [['convert', gz, join(dir, 'limits.npy'), '--max-expanded-bytes', '1K'], 'EXPANDED_TOO_LARGE'],
    ]
    for (const [args, code] of cases) {
      const r = cli(...args)
      expect(r.status).toBe(2)
      expect(r.stderr).toContain(`codebook: ${code}: `)
    }
    expect(cli('inspect', file, '--max-fields', '4').status).toBe(0)
  })
})

describe('the CLI as a process', () => {
  it('exits with 2 and a coded message on stderr for a missing file', () => {
    const entry = fileURLToPath(new URL('../entry.ts', import.meta.url))
    const missing = join(dir, 'missing.fvecs')
    const r = spawnSync(
      process.execPath,
      ['--conditions=@codebook/source', '--import', 'tsx', entry, 'inspect', missing],
      {
        encoding: 'utf8',
        timeout: 60_000,
      },
    )
    expect(r.status).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toBe(`codebook: FILE_NOT_FOUND: ${missing}: no such file\n`)
  })
})
