import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gunzipSync } from 'node:zlib'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { denseHog } from '../../features/hog.ts'
import { createRng } from '../../random/rng.ts'
import { main } from '../main.ts'
import type { CommandIo } from '../progress.ts'
import { runHog } from './hog.ts'

const DIGITS = fileURLToPath(new URL('../../../../../data/digits.png', import.meta.url))

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'codebook-hog-cli-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

function collectingIo(): CommandIo & { out: string[] } {
  const out: string[] = []
  return { out, stdout: { write: (s: string) => out.push(s) }, stderr: process.stderr }
}

/** Reads a 2-D .npy by hand (magic, header length, dict, data), independently of the runtime's reader. */
async function readNpyByHand(
  file: string,
): Promise<{ descr: string; shape: [number, number]; data: Buffer }> {
  const buf = await readFile(file)
  expect(buf.subarray(0, 6).toString('latin1')).toBe('\x93NUMPY')
  const major = buf[6]
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8)
  const start = major === 1 ? 10 : 12
  const header = buf.subarray(start, start + headerLen).toString('latin1')
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1] ?? ''
  const shape = /'shape':\s*\((\d+),\s*(\d+)\)/.exec(header)
  expect(header).toContain("'fortran_order': False")
  return { descr, shape: [Number(shape?.[1]), Number(shape?.[2])], data: buf.subarray(start + headerLen) }
}

/** Writes a seeded random greyscale PNG and returns its pixels in [0, 1]. */
async function writeRandomPng(
  file: string,
  width: number,
  height: number,
  seed: number,
): Promise<Float32Array> {
  const rng = createRng(seed)
  const bytes = Uint8Array.from({ length: width * height }, () => rng.int(256))
  await sharp(bytes, { raw: { width, height, channels: 1 } })
    .png()
    .toFile(file)
  return Float32Array.from(bytes, (b) => b / 255)
}

describe('codebook hog', () => {
  it('takes a folder with one sub-folder per class to .npy + .ids.npy, labels in sorted folder order', async () => {
    const root = join(dir, 'classes')
    // Created in reverse order: labels must follow the sorted names, not the creation order.
    await mkdir(join(root, 'zebra'), { recursive: true })
    await mkdir(join(root, 'ant'), { recursive: true })
    const zebra = await writeRandomPng(join(root, 'zebra', 'z1.png'), 16, 12, 1)
    const ant2 = await writeRandomPng(join(root, 'ant', 'b.png'), 12, 12, 2)
    const ant1 = await writeRandomPng(join(root, 'ant', 'a.PNG'), 8, 8, 3)
    await writeFile(join(root, 'ant', 'notes.txt'), 'not an image')

    const io = collectingIo()
    const out = join(dir, 'folder.npy')
    const res = await runHog(root, { patch: 8, stride: 4, cell: 4, bins: 8, out }, io)
    // Load order: ant/a.PNG (8×8: 1 patch), ant/b.png (12×12: 2×2 patches), zebra/z1.png (16×12: 3×2 patches).
    expect(res.classes).toEqual(['ant', 'zebra'])
    expect([res.images, res.patches, res.d]).toEqual([3, 1 + 4 + 6, 32])
    expect(io.out.join('')).toMatch(/^hog: 3 images in 2 classes, 11 patches × d 32 /)

    const vectors = await readNpyByHand(out)
    expect(vectors.descr).toBe('<f4')
    expect(vectors.shape).toEqual([11, 32])
    const values = new Float32Array(
      vectors.data.buffer.slice(vectors.data.byteOffset, vectors.data.byteOffset + 11 * 32 * 4),
    )
    const expected = [
      denseHog({ pixels: ant1, width: 8, height: 8 }, { patch: 8, stride: 4, cell: 4, bins: 8 }).vectors,
      denseHog({ pixels: ant2, width: 12, height: 12 }, { patch: 8, stride: 4, cell: 4, bins: 8 }).vectors,
      denseHog({ pixels: zebra, width: 16, height: 12 }, { patch: 8, stride: 4, cell: 4, bins: 8 }).vectors,
    ].flatMap((v) => Array.from(v))
    expect(Array.from(values)).toEqual(expected)

    const ids = await readNpyByHand(join(dir, 'folder.ids.npy'))
    expect(ids.descr).toBe('<i4')
    expect(ids.shape).toEqual([11, 3])
    const idValues = Array.from(
      new Int32Array(ids.data.buffer.slice(ids.data.byteOffset, ids.data.byteOffset + 11 * 3 * 4)),
    )
    // prettier-ignore
    expect(idValues).toEqual([
      0, 0, 0, 1, 0, 0, 1, 0, 4, 1, 4, 0, 1, 4, 4, 2, 0, 0, 2, 0, 4, 2, 0, 8, 2, 4, 0, 2, 4, 4, 2, 4, 8,
    ])
  })

  it('cuts a grid image with --grid and writes gzipped HOG text through main()', async () => {
    const out = join(dir, 'digits.txt.gz')
    const code = await main([
      'hog',
      DIGITS,
      '--grid',
      '20x20',
      '--rows-per-class',
      '5',
      '--patch',
      '20',
      '--stride',
      '20',
      '--cell',
      '10',
      '--bins',
      '4',
      '--out',
      out,
    ])
    expect(code).toBe(0)
    const lines = gunzipSync(await readFile(out))
      .toString('latin1')
      .trimEnd()
      .split('\n')
    // One 20 × 20 patch per digit: 2 × 2 cells of 10, one block, 4 × 4 = 16 values.
    expect(lines.length).toBe(5000)
    expect(lines[4999].split(' ').slice(0, 3)).toEqual(['4999', '0', '0'])
    expect(lines.every((l) => l.split(' ').length === 19)).toBe(true)
  })

  it('exits with 2 on bad input or options', async () => {
    const single = join(dir, 'single.png')
    await writeRandomPng(single, 6, 6, 4)
    const out = join(dir, 'bad.npy')
    const bad = [
      ['hog', join(dir, 'missing.png'), '--out', out], // FILE_NOT_FOUND
      ['hog', DIGITS, '--grid', '30x20', '--out', out], // GRID_MISMATCH
      ['hog', DIGITS, '--grid', 'twenty', '--out', out], // BAD_USAGE
      ['hog', single, '--out', out], // IMAGE_TOO_SMALL: 6 × 6 < patch 8
      ['hog', single, '--patch', '6', '--cell', '4', '--out', out], // BAD_HOG_PARAMS
      ['hog', single, '--patch', '0', '--out', out], // not a positive integer
      ['hog', single, '--out', join(dir, 'bad.csv')], // BAD_USAGE: unknown output kind
      ['hog', single, '--rows-per-class', '5', '--out', out], // BAD_USAGE: needs --grid
    ]
    const stderr = process.stderr.write
    const messages: string[] = []
    process.stderr.write = ((s: string) => messages.push(String(s)) > 0) as typeof process.stderr.write
    try {
      for (const argv of bad) expect(await main(argv), argv.join(' ')).toBe(2)
    } finally {
      process.stderr.write = stderr
    }
    const text = messages.join('')
    for (const code of ['FILE_NOT_FOUND', 'GRID_MISMATCH', 'BAD_USAGE', 'IMAGE_TOO_SMALL', 'BAD_HOG_PARAMS'])
      expect(text).toContain(code)
    await expect(readFile(out)).rejects.toMatchObject({ code: 'ENOENT' })
  })
})
