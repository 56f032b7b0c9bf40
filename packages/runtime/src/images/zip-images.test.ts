import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import yazl from 'yazl'
import { main } from '../cli/main.ts'
import { loadLabelledImages } from '../evaluation/labelled-images.ts'
import { type LabelledImage, loadGridImages } from './grid.ts'
import { loadZipImages } from './zip-images.ts'
import { openZipArchive } from './zip-reader.ts'

const DIGITS = fileURLToPath(new URL('../../../../data/digits.png', import.meta.url))

let dir: string
let cells: LabelledImage[]
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'codebook-zip-'))
  cells = (await loadGridImages(DIGITS, { cellWidth: 20, cellHeight: 20, rowsPerClass: 5 })).images
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** Cell `i` of digits.png (row-major over its 100 columns) as a PNG, cut by sharp independently of the grid loader. */
function cellPng(i: number): Promise<Buffer> {
  const row = Math.floor(i / 100)
  const col = i % 100
  return sharp(DIGITS)
    .extract({ left: col * 20, top: row * 20, width: 20, height: 20 })
    .png()
    .toBuffer()
}

/** A real zip file built with yazl: `files` are [entry name, bytes], `dirs` extra folder entries. */
async function writeZip(name: string, files: [string, Buffer][], dirs: string[] = []): Promise<string> {
  const zip = new yazl.ZipFile()
  for (const d of dirs) zip.addEmptyDirectory(d)
  for (const [entry, bytes] of files) zip.addBuffer(bytes, entry)
  zip.end()
  const chunks: Buffer[] = []
  for await (const c of zip.outputStream) chunks.push(c as Buffer)
  const path = join(dir, name)
  await writeFile(path, Buffer.concat(chunks))
  return path
}

/** Index of the j-th cell (row-major) of class c among the first `columns` columns of its 5 grid rows. */
function gridIndex(c: number, j: number, columns: number): number {
  return (5 * c + Math.floor(j / columns)) * 100 + (j % columns)
}

/** Class folders `c/jjjj.png` holding the first `perClass` cells (in `columns`-wide row order) of digits 0..classes−1. */
async function digitEntries(classes: number, perClass: number, columns: number, prefix = '') {
  const files: [string, Buffer][] = []
  for (let c = 0; c < classes; c++)
    for (let j = 0; j < perClass; j++)
      files.push([`${prefix}${c}/${String(j).padStart(4, '0')}.png`, await cellPng(gridIndex(c, j, columns))])
  return files
}

describe('loadZipImages', () => {
  it('reads class folders in sorted order with the pixels of the grid cells, skipping macOS metadata', async () => {
    const files = await digitEntries(3, 4, 100)
    // Shuffled archive order, junk entries and folder entries: none may change the result.
    files.reverse()
    files.push(['__MACOSX/0/._0000.png', Buffer.from('junk')], ['1/.DS_Store', Buffer.from('junk')])
    const zip = await writeZip('good.zip', files, ['0/', '1/', '2/'])
    const set = await loadZipImages(zip)
    expect(set.classes).toEqual(['0', '1', '2'])
    expect(set.files).toEqual(
      [0, 1, 2].flatMap((c) => [0, 1, 2, 3].map((j) => `${c}/${String(j).padStart(4, '0')}.png`)),
    )
    expect(set.images.map((im) => im.label)).toEqual([0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2])
    expect(set.images.map((im) => im.id)).toEqual([...Array(12).keys()])
    set.images.forEach((im, i) => {
      const cell = cells[gridIndex(Math.floor(i / 4), i % 4, 100)]!
      expect([im.width, im.height]).toEqual([20, 20])
      expect(Array.from(im.pixels)).toEqual(Array.from(cell.pixels))
    })
  })

  it('accepts one wrapping folder around the class folders', async () => {
    const zip = await writeZip('wrapped.zip', await digitEntries(2, 2, 100, 'digits/'))
    const set = await loadZipImages(zip)
    expect(set.classes).toEqual(['0', '1'])
    expect(set.files).toEqual([
      'digits/0/0000.png',
      'digits/0/0001.png',
      'digits/1/0000.png',
      'digits/1/0001.png',
    ])
  })

  it('reports bad archives with a code naming the entry', async () => {
    const png = await cellPng(0)
    const cases: [string, Promise<string>, string, string][] = [
      [
        'not a zip',
        writeFile(join(dir, 'fake.zip'), png).then(() => join(dir, 'fake.zip')),
        'BAD_ZIP',
        'fake.zip',
      ],
      [
        'loose images',
        writeZip('loose.zip', [
          ['a.png', png],
          ['b.png', png],
        ]),
        'NO_CLASS_FOLDERS',
        'class folder',
      ],
      [
        'a text file',
        writeZip('text.zip', [
          ['0/a.png', png],
          ['1/notes.txt', Buffer.from('hello')],
        ]),
        'NOT_AN_IMAGE',
        "'1/notes.txt'",
      ],
      [
        'an undecodable image',
        writeZip('broken.zip', [
          ['0/a.png', png],
          ['1/b.png', png.subarray(0, 40)],
        ]),
        'UNDECODABLE_IMAGE',
        "'1/b.png'",
      ],
      [
        'an image outside the class folders',
        writeZip('stray.zip', [
          ['0/a.png', png],
          ['c.png', png],
        ]),
        'ZIP_BAD_LAYOUT',
        "'c.png'",
      ],
    ]
    for (const [what, path, code, names] of cases) {
      const error = await loadZipImages(await path).then(
        () => undefined,
        (e: Error & { code: string }) => e,
      )
      expect(error, what).toBeDefined()
      expect(error!.code, what).toBe(code)
      expect(error!.message, what).toContain(names)
    }
  })

  it('rejects a zip-slip path (../x.png) before reading anything', async () => {
    const png = await cellPng(0)
    const path = await writeZip('slip.zip', [
      ['0/a.png', png],
      ['zz/x.png', png],
    ])
    // yazl refuses to write '..', so patch the name in place (same length; local header and central directory).
    const { readFile } = await import('node:fs/promises')
    const bytes = await readFile(path)
    const from = Buffer.from('zz/x.png')
    let at = bytes.indexOf(from)
    let patched = 0
    while (at >= 0) {
      Buffer.from('../x.png').copy(bytes, at)
      patched++
      at = bytes.indexOf(from, at + 1)
    }
    expect(patched).toBe(2)
    await writeFile(path, bytes)
    await expect(openZipArchive(path)).rejects.toMatchObject({
      code: 'ZIP_UNSAFE_PATH',
      message: expect.stringContaining("'../x.png'"),
    })
    await expect(loadZipImages(path)).rejects.toMatchObject({ code: 'ZIP_UNSAFE_PATH' })
  })

  it('reads single entries by name', async () => {
    const png = await cellPng(7)
    const zip = await openZipArchive(await writeZip('one.zip', [['3/x.png', png]]))
    try {
      expect(zip.entries).toEqual([{ name: '3/x.png', size: png.length }])
      expect((await zip.read('3/x.png')).equals(png)).toBe(true)
      await expect(zip.read('nope.png')).rejects.toMatchObject({ code: 'ZIP_ENTRY_NOT_FOUND' })
    } finally {
      zip.close()
    }
  })
})

describe('zip sources of loadLabelledImages and codebook evaluate', () => {
  it('limitPerClass keeps the first n images of every class, as for the grid', async () => {
    const zip = await writeZip('limit.zip', await digitEntries(10, 6, 100))
    const fromZip = await loadLabelledImages({ kind: 'zip', file: zip, limitPerClass: 3 })
    const fromGrid = await loadLabelledImages({
      kind: 'grid',
      file: DIGITS,
      cellWidth: 20,
      cellHeight: 20,
      rowsPerClass: 5,
      limitPerClass: 3,
    })
    expect(fromZip.images.length).toBe(30)
    expect(Array.from(fromZip.labels)).toEqual(Array.from(fromGrid.labels))
    expect(fromZip.images.map((im) => im.id)).toEqual(fromGrid.images.map((im) => im.id))
    fromZip.images.forEach((im, i) => {
      expect(Array.from(im.pixels)).toEqual(Array.from(fromGrid.images[i]!.pixels))
    })
    expect(fromZip.files.slice(0, 4)).toEqual(['0/0000.png', '0/0001.png', '0/0002.png', '1/0000.png'])
  })

  it('codebook evaluate --images X.zip matches the same digits given as a grid', async () => {
    // 2 columns × 5 rows per digit = 10 images per class, in the grid's row-major order.
    const zip = await writeZip('digits.zip', await digitEntries(10, 10, 2))
    const common = ['--k', '4,8', '--iterations', '3', '--json']
    const fromZip = await cli(['evaluate', '--images', zip, ...common])
    const fromGrid = await cli([
      'evaluate',
      '--images',
      DIGITS,
      '--grid',
      '20x20',
      '--rows-per-class',
      '5',
      '--columns',
      '2',
      ...common,
    ])
    expect(fromZip.code).toBe(0)
    expect(fromGrid.code).toBe(0)
    const pick = (l: CliLine) => [l.k, l.accuracy, l.confusion]
    expect(fromZip.lines.map(pick)).toEqual(fromGrid.lines.map(pick))
    expect(fromZip.lines[0]!.confusion.flat().reduce((a: number, b: number) => a + b, 0)).toBe(50)
    for (const m of fromZip.lines.flatMap((l) => l.misclassified)) expect(m.file).toMatch(/^\d\/\d{4}\.png$/)
  }, 120_000)

  it('codebook evaluate reports a bad zip with its code', async () => {
    const zip = await writeZip('cli-bad.zip', [
      ['0/a.png', await cellPng(0)],
      ['1/b.txt', Buffer.from('x')],
    ])
    const { code, stderr } = await cli(['evaluate', '--images', zip, '--k', '4'])
    expect(code).toBe(2)
    expect(stderr).toContain('NOT_AN_IMAGE')
    expect(stderr).toContain('1/b.txt')
  })
})

/** One `--json` line of `codebook evaluate`, as far as these tests read it. */
interface CliLine {
  k: number
  accuracy: number
  confusion: number[][]
  misclassified: { file?: string }[]
}

/** Runs `codebook ARGS…` in-process; stdout parsed as JSON lines. */
async function cli(args: string[]) {
  const out: string[] = []
  const err: string[] = []
  const write = { out: process.stdout.write, err: process.stderr.write }
  process.stdout.write = ((s: string) => out.push(s) > 0) as typeof process.stdout.write
  process.stderr.write = ((s: string) => err.push(s) > 0) as typeof process.stderr.write
  try {
    const code = await main(args)
    const stdout = out.join('')
    const lines = stdout.trim()
      ? stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as CliLine)
      : []
    return { code, lines, stderr: err.join('') }
  } finally {
    process.stdout.write = write.out
    process.stderr.write = write.err
  }
}
