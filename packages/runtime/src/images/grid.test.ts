import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadGridImages } from './grid.ts'
import { loadImage } from './load-image.ts'

const DIGITS = fileURLToPath(new URL('../../../../data/digits.png', import.meta.url))

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'codebook-grid-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('loadGridImages on digits.png', () => {
  it('splits it into 5,000 digits of 20 × 20 with labels 0–9, 500 each', async () => {
    const { images, width, height } = await loadGridImages(DIGITS, {
      cellWidth: 20,
      cellHeight: 20,
      rowsPerClass: 5,
    })
    expect([width, height]).toEqual([2000, 1000])
    expect(images.length).toBe(5000)
    const counts = new Array(10).fill(0)
    images.forEach((im, i) => {
      expect(im.id).toBe(i)
      expect([im.width, im.height, im.pixels.length]).toEqual([20, 20, 400])
      expect([im.gridRow, im.gridCol]).toEqual([Math.floor(i / 100), i % 100])
      counts[im.label as number]++
    })
    expect(counts).toEqual(new Array(10).fill(500))
    expect(images[512].label).toBe(1) // grid row 5 is the first row of ones

    // Cell (row 7, col 33) must be exactly the pixels sharp extracts from that rectangle, scaled to [0, 1].
    const cell = images[7 * 100 + 33]
    // (sharp's plain raw output is sRGB, three equal channels for this grey PNG: take the first.)
    const { data, info } = await sharp(DIGITS)
      .extract({ left: 33 * 20, top: 7 * 20, width: 20, height: 20 })
      .raw()
      .toBuffer({ resolveWithObject: true })
    const region = Array.from({ length: 400 }, (_, i) => data[i * info.channels])
    expect(Array.from(cell.pixels)).toEqual(region.map((b) => Math.fround(b / 255)))
    // Digits are white on black: a real digit has both ink and background.
    expect(Math.max(...cell.pixels)).toBeGreaterThan(0.5)
    expect(Math.min(...cell.pixels)).toBe(0)
  })

  it('rejects a cell size that does not tile the image with GRID_MISMATCH', async () => {
    await expect(loadGridImages(DIGITS, { cellWidth: 30, cellHeight: 20 })).rejects.toMatchObject({
      code: 'GRID_MISMATCH',
    })
    await expect(loadGridImages(DIGITS, { cellWidth: 20, cellHeight: 0 })).rejects.toMatchObject({
      code: 'BAD_GRID_OPTIONS',
    })
  })
})

describe('loadGridImages and loadImage on small written images', () => {
  it('cuts a 6 × 4 PNG into 2 × 2 cells, row-major, labelled by rows', async () => {
    const bytes = Uint8Array.from({ length: 24 }, (_, i) => i * 10)
    const file = join(dir, 'grid.png')
    await sharp(bytes, { raw: { width: 6, height: 4, channels: 1 } })
      .png()
      .toFile(file)
    const { images } = await loadGridImages(file, { cellWidth: 2, cellHeight: 2, rowsPerClass: 1 })
    expect(images.map((im) => im.label)).toEqual([0, 0, 0, 1, 1, 1])
    // Cell (1, 2) covers x 4–5, y 2–3: bytes 16, 17, 22, 23 → values 160, 170, 220, 230.
    expect(Array.from(images[5].pixels)).toEqual([160, 170, 220, 230].map((v) => Math.fround(v / 255)))
    const unlabelled = await loadGridImages(file, { cellWidth: 3, cellHeight: 2 })
    expect(unlabelled.images.map((im) => im.label)).toEqual([null, null, null, null])
  })

  it('loads a grey RGB PNG as its grey level', async () => {
    const rgb = new Uint8Array(3 * 4)
    for (const [i, v] of [0, 64, 200, 255].entries()) rgb.set([v, v, v], 3 * i)
    const file = join(dir, 'rgb.png')
    await sharp(rgb, { raw: { width: 2, height: 2, channels: 3 } })
      .png()
      .toFile(file)
    const { pixels, width, height } = await loadImage(file)
    expect([width, height]).toEqual([2, 2])
    const expected = [0, 64, 200, 255].map((v) => v / 255)
    for (let i = 0; i < 4; i++) expect(Math.abs(pixels[i] - expected[i])).toBeLessThanOrEqual(1 / 255 + 1e-7)
  })

  it('reports a file that is not an image as IMAGE_UNREADABLE, naming it', async () => {
    const file = join(dir, 'not-an-image.png')
    await writeFile(file, 'hello')
    await expect(loadImage(file)).rejects.toMatchObject({
      code: 'IMAGE_UNREADABLE',
      message: expect.stringContaining(file),
    })
    await expect(
      loadGridImages(join(dir, 'missing.png'), { cellWidth: 2, cellHeight: 2 }),
    ).rejects.toMatchObject({
      code: 'IMAGE_UNREADABLE',
    })
  })
})
