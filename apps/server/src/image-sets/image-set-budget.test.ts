import { readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { CodebookError } from '@codebook/runtime/errors'
import { ErrorBody } from '@codebook/shared'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../app.ts'
import { blackPng, cellPng, zipOf } from '../test-support/images.ts'
import { authHeaders, makeTempHome, testConfig } from '../test-support/test-server.ts'
import { checkImageSet, type PixelBudget } from './image-set-check.ts'

describe('image-set checks off the server', () => {
  let home: Awaited<ReturnType<typeof makeTempHome>>
  let app: FastifyInstance
  beforeAll(async () => {
    home = await makeTempHome()
    app = await buildApp(testConfig(home.home, undefined))
  })
  afterAll(async () => {
    await app?.close()
    await home.remove()
  })

  it("refuses a zip of 16,000 × 16,000 PNGs by their headers with IMAGE_TOO_LARGE, the server's RSS flat", async () => {
    // The probe's case: four 256 M-pixel PNGs in a small zip took the server to 3.9 GB decoding them.
    const huge = await blackPng(16_000, 16_000)
    const zip = await zipOf([
      ['a/1.png', huge],
      ['a/2.png', huge],
      ['b/1.png', huge],
      ['b/2.png', huge],
    ])
    expect(zip.length).toBeLessThan(4 * 1024 ** 2)
    const before = process.memoryUsage.rss()
    let peak = before
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss())
    }, 5)
    try {
      const res = await app.inject({
        method: 'PUT',
        url: '/api/image-sets?name=huge&kind=zip',
        headers: { ...authHeaders, 'content-type': 'application/octet-stream' },
        payload: zip,
      })
      expect(res.statusCode).toBe(400)
      const error = ErrorBody.parse(res.json())
      expect(error.code).toBe('IMAGE_TOO_LARGE')
      expect(error.message).toContain("entry 'a/1.png' is 16000×16000")
      expect(error.message).not.toContain(home.home)
    } finally {
      clearInterval(sampler)
    }
    const grownMb = (peak - before) / 1024 ** 2
    console.log(`server RSS grew by ${grownMb.toFixed(0)} MB while refusing the zip`)
    // Decoding one of them in-process takes 256 MB as grey bytes and 1 GB as float32.
    expect(grownMb).toBeLessThan(150)
    expect(await readdir(join(home.home, 'uploads'))).toEqual([])
    expect(await readdir(join(home.home, 'image-sets'))).toEqual([])
  }, 120_000)

  it('removes image-set uploads a dead server left in uploads/ at the next start', async () => {
    await app.close()
    await writeFile(join(home.home, 'uploads', 'image-set-cut-off'), 'half a zip')
    app = await buildApp(testConfig(home.home, undefined))
    expect(await readdir(join(home.home, 'uploads'))).toEqual([])
  })

  it('refuses a set over its pixel budget with IMAGE_SET_TOO_LARGE naming the entry, and a grid over the image budget', async () => {
    const png = await cellPng(0) // 20 × 20 = 400 pixels
    const file = join(home.home, 'small.zip')
    await writeFile(
      file,
      await zipOf([
        ['a/1.png', png],
        ['a/2.png', png],
        ['b/1.png', png],
      ]),
    )
    const budget: PixelBudget = { maxImagePixels: 400, maxSetPixels: 1000 }
    const refusal = await checkImageSet({ kind: 'zip', file, budget }).catch((err: unknown) => err)
    expect(refusal).toBeInstanceOf(CodebookError)
    expect(refusal).toMatchObject({ code: 'IMAGE_SET_TOO_LARGE' })
    expect((refusal as Error).message).toContain("entry 'b/1.png'")

    const roomy = await checkImageSet({ kind: 'zip', file, budget: { ...budget, maxSetPixels: 1200 } })
    expect(roomy).toEqual({
      classes: ['a', 'b'],
      classCounts: [2, 1],
      minSide: 20,
      columns: 0,
      entries: ['a/1.png', 'a/2.png', 'b/1.png'],
    })

    const grid = join(home.home, 'grid.png')
    await writeFile(grid, await blackPng(40, 20))
    const job = { kind: 'grid', file: grid, cellWidth: 20, cellHeight: 10, rowsPerClass: 1 } as const
    await expect(
      checkImageSet({ ...job, budget: { maxImagePixels: 799, maxSetPixels: 10_000 } }),
    ).rejects.toMatchObject({ code: 'IMAGE_TOO_LARGE' })
    expect(await checkImageSet({ ...job, budget: { maxImagePixels: 800, maxSetPixels: 800 } })).toEqual({
      classes: ['0', '1'],
      classCounts: [2, 2],
      minSide: 10,
      columns: 2,
      entries: [],
    })
  })
})
