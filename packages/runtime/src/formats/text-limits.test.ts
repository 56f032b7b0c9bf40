// Bounds and encodings of the text readers: an input built to exhaust memory (a line without
// newlines, a line of countless fields, a gzip bomb) fails with a coded error as soon as the
// bound is crossed; byte-order marks are skipped (UTF-8) or refused with advice (UTF-16).
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import type { ByteSource } from './byte-source.ts'
import { csvReader } from './csv.ts'
import { detectFormat } from './detect.ts'
import { hogTextReader } from './hog-text.ts'
import { DEFAULT_MAX_LINE_BYTES } from './limits.ts'
import { importToStore, inspectFile } from './store.ts'
import { expectFormatError, listDir, npyBytes, useTempDir } from './test-support/fixtures.ts'

const tmp = useTempDir()
const write = tmp.write

/** A source that never ends: `first`, then `chunk` forever, counting the chunks a reader pulls. */
function endlessSource(first: string, chunk: Buffer): { src: ByteSource; pulled: () => number } {
  let pulled = 0
  async function* chunks(): AsyncGenerator<Buffer> {
    pulled++
    yield Buffer.from(first)
    for (;;) {
      pulled++
      yield chunk
    }
  }
  return {
    src: { file: 'endless.txt', totalBytes: 0, gzip: false, bytesRead: () => 0, chunks: chunks() },
    pulled: () => pulled,
  }
}

async function drain(batches: AsyncGenerator<unknown>): Promise<void> {
  for await (const _ of batches) {
    // consume
  }
}

describe('line length bound (LINE_TOO_LONG)', () => {
  it('stops an endless line without newlines after about maxLineBytes, HOG and CSV', async () => {
    const chunk = Buffer.from('0 '.repeat(32 * 1024)) // 64 KiB per chunk
    for (const [reader, sep] of [
      [hogTextReader, ' '],
      [csvReader, ','],
    ] as const) {
      const { src, pulled } = endlessSource(
        `1${sep}2${sep}3${sep}4\n`,
        Buffer.from(chunk.toString().replaceAll(' ', sep)),
      )
      await expectFormatError(drain(reader(src, { maxLineBytes: 1 << 20 }).batches()), 'LINE_TOO_LONG', {
        file: 'endless.txt',
        line: 2,
      })
      // 1 MiB / 64 KiB = 16 chunks make the line; it fails on the 17th, never holding more.
      expect(pulled()).toBeLessThanOrEqual(18)
    }
  })

  it('fails a gzipped single line of zeros (the probe: 261 KB expanding to 64 MB) at line 1, leaving nothing', async () => {
    const file = await write('bomb.txt.gz', gzipSync(Buffer.from('0 '.repeat(32 << 20)), { level: 9 }))
    const e = await expectFormatError(importToStore(file, join(tmp.dir(), 'bomb-store')), 'LINE_TOO_LONG', {
      file,
      line: 1,
    })
    expect(e.message).toContain(`${DEFAULT_MAX_LINE_BYTES} bytes`)
    expect(await listDir(tmp.dir())).toEqual(['bomb.txt.gz'])
  })

  it('accepts a line of exactly maxLineBytes and refuses one byte more, with or without a final newline', async () => {
    const line = (bytes: number) => `1 2 3 ${'0'.repeat(bytes - 6)}`
    for (const tail of ['\n', '']) {
      const ok = await write('exact.txt', `1 2 3 4\n${line(100)}${tail}`)
      expect((await inspectFile(ok, { maxLineBytes: 100 })).n).toBe(2)
      const over = await write('over.txt', `1 2 3 4\n${line(101)}${tail}`)
      await expectFormatError(inspectFile(over, { maxLineBytes: 100 }), 'LINE_TOO_LONG', {
        file: over,
        line: 2,
      })
    }
  })
})

describe('field count bound (TOO_MANY_FIELDS)', () => {
  it('refuses a first line of more than maxFields fields, HOG and CSV', async () => {
    const hog = await write('wide.txt', `1 2 3${' 0'.repeat(70_000)}\n`)
    await expectFormatError(inspectFile(hog), 'TOO_MANY_FIELDS', { file: hog, line: 1 })
    const csv = await write('wide.csv', `${Array(20).fill('0').join(',')}\n`)
    await expectFormatError(inspectFile(csv, { maxFields: 16 }), 'TOO_MANY_FIELDS', { file: csv, line: 1 })
  })

  it('refuses a later line past maxFields (not just a wrong count), and takes maxFields exactly', async () => {
    const hog = await write('later.txt', `1 2 3 4 5\n1 2 3 4 5 6 7 8 9\n`)
    await expectFormatError(inspectFile(hog, { maxFields: 8 }), 'TOO_MANY_FIELDS', { file: hog, line: 2 })
    await expectFormatError(inspectFile(hog, { maxFields: 9 }), 'WRONG_FIELD_COUNT', { file: hog, line: 2 })
    const csv = await write('later.csv', 'a,b\n1,2\n1,2,3,4,5\n')
    await expectFormatError(inspectFile(csv, { maxFields: 4 }), 'TOO_MANY_FIELDS', { file: csv, line: 3 })
    const exact = await write('exact.csv', '1,2,3,4\n5,6,7,8\n')
    expect((await inspectFile(exact, { maxFields: 4 })).d).toBe(4)
  })
})

describe('expanded size bound (EXPANDED_TOO_LARGE)', () => {
  it('stops a gzip input that expands past maxExpandedBytes and leaves no output', async () => {
    const rows = '1 2 3 0.5 0.25\n'.repeat(200_000) // 3 MB of valid HOG text
    const file = await write('rows.txt.gz', gzipSync(rows))
    expect((await inspectFile(file, { maxExpandedBytes: rows.length })).n).toBe(200_000)
    await expectFormatError(
      importToStore(file, join(tmp.dir(), 'rows-store'), { maxExpandedBytes: 1 << 20 }),
      'EXPANDED_TOO_LARGE',
      { file },
    )
    expect((await listDir(tmp.dir())).filter((f) => f.includes('rows-store'))).toEqual([])
    const npy = await write(
      'zeros.npy.gz',
      gzipSync(npyBytes(new Uint8Array(4 << 20), { descr: '<f4', shape: '(1048576, 1)' })),
    )
    await expectFormatError(
      inspectFile(npy, { format: 'npy', maxExpandedBytes: 1 << 20 }),
      'EXPANDED_TOO_LARGE',
      {
        file: npy,
      },
    )
  })
})

describe('encodings', () => {
  it('skips a UTF-8 byte-order mark (noted), in plain and gzipped text and in detection', async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf])
    const text = Buffer.from('1 2 3 0.5 0.25\n4 5 6 1 2\n')
    for (const [name, bytes] of [
      ['bom.txt', Buffer.concat([bom, text])],
      ['bom.txt.gz', gzipSync(Buffer.concat([bom, text]))],
      ['bom-noext', Buffer.concat([bom, text])],
    ] as const) {
      const file = await write(name, bytes)
      const stats = await inspectFile(file)
      expect(stats).toMatchObject({
        n: 2,
        d: 2,
        format: 'hog-text',
        notes: ['skipped a UTF-8 byte-order mark'],
      })
    }
    const csv = await write('bom.csv', Buffer.concat([bom, Buffer.from('x,y\n1,2\n')]))
    expect(await inspectFile(csv)).toMatchObject({ n: 1, d: 2, notes: ['skipped a UTF-8 byte-order mark'] })
    const plain = await write('plain.txt', text)
    expect((await inspectFile(plain)).notes).toEqual([])
  })

  it('refuses UTF-16 (LE and BE byte-order marks) with UNSUPPORTED_ENCODING and advice, by name and by content', async () => {
    const text = '1 2 3 0.5 0.25\n'
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])
    const be = Buffer.from(le)
    be.swap16()
    for (const [name, bytes] of [
      ['le.txt', le],
      ['be.csv', be],
      ['le-noext', le],
      ['be.txt.gz', gzipSync(be)],
    ] as const) {
      const file = await write(name, bytes)
      const e = await expectFormatError(inspectFile(file), 'UNSUPPORTED_ENCODING', { file, line: 1 })
      expect(e.message).toContain('convert it to UTF-8')
    }
    await expect(detectFormat(join(tmp.dir(), 'le-noext'))).rejects.toMatchObject({
      code: 'UNSUPPORTED_ENCODING',
    })
  })
})
