import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { detectFormat, formatFromName } from './detect.ts'
import { inspectFile } from './store.ts'
import { expectFormatError, makeTempDir, npyBytes, vecsBytes } from './test-support/fixtures.ts'

let dir: string
let cleanup: () => Promise<void>
beforeAll(async () => ({ dir, cleanup } = await makeTempDir()))
afterAll(() => cleanup())

async function write(name: string, content: string | Buffer): Promise<string> {
  const file = join(dir, name)
  await writeFile(file, content)
  return file
}

describe('detectFormat', () => {
  it('goes by the extension, looking inside .gz', () => {
    expect(formatFromName('/a/b.TXT')).toBe('hog-text')
    expect(formatFromName('x.hog.gz')).toBe('hog-text')
    expect(formatFromName('x.npy')).toBe('npy')
    expect(formatFromName('x.fvecs.gz')).toBe('fvecs')
    expect(formatFromName('x.bvecs')).toBe('bvecs')
    expect(formatFromName('x.csv')).toBe('csv')
    expect(formatFromName('x.dat')).toBeNull()
    expect(formatFromName('dir.npy/x')).toBeNull()
  })

  it('falls back to the content for unknown names', async () => {
    const hog = '1 2 3 0.5 0.25\n4 5 6 1 2\n'
    const cases: Array<[string, string | Buffer, string]> = [
      ['npy.bin', npyBytes(new Uint8Array(8), { descr: '<f4', shape: '(1, 2)' }), 'npy'],
      ['hog.dat', hog, 'hog-text'],
      ['hog.dat.gz', gzipSync(hog), 'hog-text'],
      ['csv.dat', 'a,b\n1,2\n', 'csv'],
      ['col.dat', '1\n2.5\n', 'csv'],
      [
        'f.bin',
        vecsBytes(
          [
            [1, 2, 3],
            [4, 5, 6],
          ],
          'fvecs',
        ),
        'fvecs',
      ],
      [
        'b.bin',
        vecsBytes(
          [
            [1, 2, 3],
            [4, 5, 6],
            [7, 8, 9],
          ],
          'bvecs',
        ),
        'bvecs',
      ],
      [
        'f.bin.gzip',
        gzipSync(
          vecsBytes(
            [
              [1, 2],
              [3, 4],
              [5, 6],
            ],
            'fvecs',
          ),
        ),
        'fvecs',
      ],
    ]
    for (const [name, content, format] of cases) {
      expect(await detectFormat(await write(name, content)), name).toBe(format)
    }
  })

  it('lets an explicit format win over the name', async () => {
    const file = await write('really-csv.txt', '1,2\n3,4\n')
    expect((await inspectFile(file, { format: 'csv' })).format).toBe('csv')
  })

  it('reports UNKNOWN_FORMAT and FILE_NOT_FOUND', async () => {
    const odd = await write('odd.dat', 'hello world\n')
    await expectFormatError(detectFormat(odd), 'UNKNOWN_FORMAT', { file: odd })
    const bin = await write('odd.bin', Buffer.from([0, 1, 2, 0xff, 0xfe, 9, 9]))
    await expectFormatError(detectFormat(bin), 'UNKNOWN_FORMAT', { file: bin })
    const missing = join(dir, 'missing.txt')
    await expectFormatError(detectFormat(missing), 'FILE_NOT_FOUND', { file: missing })
    await expectFormatError(inspectFile(missing, { format: 'hog-text' }), 'FILE_NOT_FOUND', { file: missing })
    await expectFormatError(inspectFile(dir, { format: 'csv' }), 'FILE_NOT_FOUND', { file: dir })
  })
})
