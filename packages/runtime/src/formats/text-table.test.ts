import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { gunzipSync, gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRng } from '../random/rng.ts'
import { writeHogText } from './hog-text.ts'
import { openVectorReader } from './readers.ts'
import { inspectFile } from './store.ts'
import { expectFormatError, listDir, makeTempDir, seededRows } from './test-support/fixtures.ts'
import { parseDecimal } from './text-numbers.ts'

let dir: string
let cleanup: () => Promise<void>
beforeAll(async () => ({ dir, cleanup } = await makeTempDir()))
afterAll(() => cleanup())

/** Reads a whole file through the streaming reader and concatenates the batches. */
async function readAll(file: string, format?: 'hog-text' | 'csv') {
  const reader = await openVectorReader(file, { format })
  const values: Float32Array[] = []
  const ids: Int32Array[] = []
  let d = 0
  for await (const b of reader.batches()) {
    d = b.d
    values.push(b.values as Float32Array)
    if (b.ids) ids.push(b.ids)
  }
  const join = <T extends Float32Array | Int32Array>(parts: T[], make: (n: number) => T): number[] => {
    const out = make(parts.reduce((s, p) => s + p.length, 0))
    let off = 0
    for (const p of parts) {
      out.set(p, off)
      off += p.length
    }
    return Array.from(out)
  }
  return {
    d,
    values: join(values, (n) => new Float32Array(n)),
    ids: join(ids, (n) => new Int32Array(n)),
    hasIds: reader.hasIds,
  }
}

async function write(name: string, content: string | Buffer): Promise<string> {
  const file = join(dir, name)
  await writeFile(file, content)
  return file
}

describe('parseDecimal', () => {
  it('agrees with Math.fround(Number(s)) on seeded tokens of every shape', () => {
    const rng = createRng(7)
    const shapes = [
      () => `${rng.int(100000) / 1000}`,
      () => `-${rng.next().toFixed(6)}`,
      () => `${rng.int(1000)}e${rng.int(20) - 10}`,
      () => `+${rng.int(99)}.${rng.int(99)}E-${rng.int(5)}`,
      () => `${rng.normal() * 1e30}`,
      () => `0.${'0'.repeat(rng.int(30))}${rng.int(1e9)}`,
      () => `${rng.int(1e9)}${rng.int(1e9)}${rng.int(1e9)}.5`,
      () => `.${rng.int(1000)}`,
    ]
    for (let i = 0; i < 4000; i++) {
      const s = shapes[i % shapes.length]()
      const b = Buffer.from(s, 'latin1')
      expect(Math.fround(parseDecimal(b, 0, b.length)), s).toBe(Math.fround(Number(s)))
    }
  })

  it('returns NaN for anything that is not a plain decimal', () => {
    for (const s of ['', '-', '1e', '1.2.3', 'abc', '0x10', '1,5', 'nan', 'inf', '.', '--1']) {
      const b = Buffer.from(s, 'latin1')
      expect(parseDecimal(b, 0, b.length), s).toBeNaN()
    }
  })
})

describe('HOG text', () => {
  it('reads ids and values with CRLF, blank lines, tabs, runs of spaces and no final newline', async () => {
    const file = await write('mixed.txt', '  1 2 3   0.5 -1.25\r\n\r\n\n4\t5\t6\t1e-2\t2\n  \n7 8 9 3 4')
    const r = await readAll(file)
    expect(r.d).toBe(2)
    expect(r.hasIds).toBe(true)
    expect(r.ids).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9])
    expect(r.values).toEqual([0.5, -1.25, Math.fround(0.01), 2, 3, 4])
  })

  it('reads d = 1 with a trailing newline', async () => {
    const r = await readAll(await write('d1.hog', '0 0 0 1.5\n-1 2 3 7\n'))
    expect(r.d).toBe(1)
    expect(r.values).toEqual([1.5, 7])
    expect(r.ids).toEqual([0, 0, 0, -1, 2, 3])
  })

  it('round-trips a multi-chunk file written as independent text, and gzipped', async () => {
    // 1600 rows × 96 dims is ≈ 1.2 MB, so lines straddle the 1 MB read chunks (and the smaller gunzip chunks).
    const rows = seededRows(1600, 96, 11)
    const text = `${rows.map((r, i) => `${i} ${i % 7} ${-i} ${r.map((v) => v.toFixed(4)).join(' ')}`).join('\n')}\n`
    const expected = rows.flat().map((v) => Math.fround(Number(v.toFixed(4))))
    for (const [name, content] of [
      ['big.txt', text],
      ['big.txt.gz', gzipSync(text)],
    ] as const) {
      const r = await readAll(await write(name, content))
      expect(r.d).toBe(96)
      expect(r.values.length).toBe(expected.length)
      expect(r.values.filter((v, i) => v !== expected[i]).length).toBe(0)
      expect(r.ids.slice(-3)).toEqual([1599, 1599 % 7, -1599])
    }
  })

  it('writeHogText output reads back exactly (plain and gzipped), compared by splitting the text independently', async () => {
    const n = 50
    const d = 5
    const rows = seededRows(n, d, 3)
    const vectors = Float32Array.from(rows.flat().map((v) => v * Math.PI))
    const ids = Int32Array.from({ length: n * 3 }, (_, i) => i * 3 - 7)
    for (const name of ['w.txt', 'w.txt.gz']) {
      const file = join(dir, name)
      await writeHogText(file, vectors, ids, d)
      const raw = await readFile(file)
      const text = (name.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8')
      const lines = text.trimEnd().split('\n')
      expect(lines.length).toBe(n)
      const parsed = lines.map((l) => l.split(' ').map(Number))
      expect(parsed.flatMap((p) => p.slice(0, 3))).toEqual(Array.from(ids))
      expect(Float32Array.from(parsed.flatMap((p) => p.slice(3)))).toEqual(vectors)
      expect((await readAll(file, 'hog-text')).values).toEqual(Array.from(vectors))
    }
    expect((await listDir(dir)).filter((f) => f.includes('.tmp-'))).toEqual([])
  })

  it('rejects a line with the wrong field count, naming the line', async () => {
    const file = await write('count.txt', '1 2 3 0.5 0.5\n\n4 5 6 0.5\n')
    await expectFormatError(inspectFile(file), 'WRONG_FIELD_COUNT', { file, line: 3 })
  })

  it('rejects too few fields on the first line', async () => {
    const file = await write('short.txt', '1 2 3\n')
    await expectFormatError(inspectFile(file, { format: 'hog-text' }), 'WRONG_FIELD_COUNT', { file, line: 1 })
  })

  it('rejects a non-numeric value and a non-integer id', async () => {
    const a = await write('nonnum.txt', '1 2 3 0.5\n1 2 3 x7\n')
    await expectFormatError(inspectFile(a), 'NON_NUMERIC_FIELD', { file: a, line: 2 })
    const b = await write('fracid.txt', '1 2 3 0.5\n1 2.5 3 1\n')
    const err = await expectFormatError(inspectFile(b), 'NON_NUMERIC_FIELD', { file: b, line: 2 })
    expect(err.message).toContain('id field 2')
  })

  it('rejects NaN, infinities and float32 overflow as NON_FINITE_VALUE', async () => {
    for (const [name, bad] of [
      ['nan.txt', 'NaN'],
      ['inf.txt', '-inf'],
      ['big.hog', '1e39'],
    ]) {
      const file = await write(name, `0 0 0 1 2\n0 0 1 3 4\n0 0 2 5 ${bad}\n`)
      await expectFormatError(inspectFile(file), 'NON_FINITE_VALUE', { file, line: 3 })
    }
  })

  it('rejects an id that does not fit int32', async () => {
    const file = await write('bigid.txt', '1 2 3 0.5\n1 2 3000000000 1\n')
    await expectFormatError(inspectFile(file), 'VALUE_OUT_OF_RANGE', { file, line: 2 })
  })

  it('rejects a file of blank lines as EMPTY_INPUT', async () => {
    const file = await write('empty.txt', '\n  \r\n\n')
    await expectFormatError(inspectFile(file), 'EMPTY_INPUT', { file })
  })

  it('rejects a corrupt and a truncated gzip stream as BAD_GZIP', async () => {
    const gz = gzipSync(Buffer.from('1 2 3 0.5 0.25\n'.repeat(2000)))
    const truncated = await write('trunc.txt.gz', gz.subarray(0, gz.length - 20))
    await expectFormatError(inspectFile(truncated), 'BAD_GZIP', { file: truncated })
    const corrupt = Buffer.from(gz)
    corrupt.fill(0xff, 20, 60)
    const bad = await write('corrupt.txt.gz', corrupt)
    await expectFormatError(inspectFile(bad), 'BAD_GZIP', { file: bad })
  })
})

describe('CSV', () => {
  it('reads with and without a header, CRLF, quotes, spaces and no final newline', async () => {
    const withHeader = await readAll(await write('h.csv', 'a,b,"c"\r\n1, 2 ,3\r\n\r\n4,"5",6e0'))
    expect(withHeader).toMatchObject({ d: 3, values: [1, 2, 3, 4, 5, 6], ids: [], hasIds: false })
    const bare = await readAll(await write('n.csv', '-1.5,2\n3,4\n'))
    expect(bare).toMatchObject({ d: 2, values: [-1.5, 2, 3, 4] })
    const oneColumn = await readAll(await write('one.csv', 'x\n1\n2\n'))
    expect(oneColumn).toMatchObject({ d: 1, values: [1, 2] })
  })

  it('rejects wrong field counts (against the header), empty and non-numeric fields', async () => {
    const a = await write('c1.csv', 'a,b\n1,2\n3,4,5\n')
    await expectFormatError(inspectFile(a), 'WRONG_FIELD_COUNT', { file: a, line: 3 })
    const b = await write('c2.csv', '1,2\n3,\n')
    await expectFormatError(inspectFile(b), 'NON_NUMERIC_FIELD', { file: b, line: 2 })
    const c = await write('c3.csv', '1,2\n3,four\n')
    await expectFormatError(inspectFile(c), 'NON_NUMERIC_FIELD', { file: c, line: 2 })
  })

  it('rejects a header with no rows as EMPTY_INPUT', async () => {
    const file = await write('c4.csv', 'a,b,c\n')
    await expectFormatError(inspectFile(file), 'EMPTY_INPUT', { file })
  })
})
