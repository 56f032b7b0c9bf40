import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadImageFolder } from './image-folder.ts'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'codebook-folder-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** A uniform grey PNG whose level identifies it after loading. */
async function writeLevel(file: string, level: number, format: 'png' | 'jpeg' = 'png'): Promise<void> {
  const img = sharp(new Uint8Array(16).fill(level), { raw: { width: 4, height: 4, channels: 1 } })
  await (format === 'png' ? img.png() : img.jpeg({ quality: 100 })).toFile(file)
}

describe('loadImageFolder', () => {
  it('labels sub-folders in sorted name order, loads top-level images unlabelled first, skips other files', async () => {
    const root = join(dir, 'set')
    for (const name of ['cats', 'Birds', 'ants']) await mkdir(join(root, name), { recursive: true })
    await writeLevel(join(root, 'cats', 'b.png'), 50)
    await writeLevel(join(root, 'cats', 'a.jpg'), 40, 'jpeg')
    await writeLevel(join(root, 'ants', 'x.png'), 30)
    await writeLevel(join(root, 'Birds', 'y.JPEG'), 20, 'jpeg')
    await writeLevel(join(root, 'top.png'), 10)
    await writeFile(join(root, 'cats', 'readme.txt'), 'skip me')
    await mkdir(join(root, 'empty'))

    const { images, files, classes } = await loadImageFolder(root)
    // Code-point order: uppercase sorts before lowercase, so Birds is label 0.
    expect(classes).toEqual(['Birds', 'ants', 'cats', 'empty'])
    expect(files.map((f) => f.slice(root.length + 1))).toEqual([
      'top.png',
      'Birds/y.JPEG',
      'ants/x.png',
      'cats/a.jpg',
      'cats/b.png',
    ])
    expect(images.map((im) => im.label)).toEqual([null, 0, 1, 2, 2])
    expect(images.map((im) => im.id)).toEqual([0, 1, 2, 3, 4])
    const levels = images.map((im) => Math.round(im.pixels[5] * 255))
    expect(levels).toEqual([10, 20, 30, 40, 50])
  })

  it('reports a folder without images as NO_IMAGES', async () => {
    const empty = join(dir, 'nothing')
    await mkdir(join(empty, 'sub'), { recursive: true })
    await writeFile(join(empty, 'a.txt'), 'x')
    await expect(loadImageFolder(empty)).rejects.toMatchObject({ code: 'NO_IMAGES' })
  })
})
