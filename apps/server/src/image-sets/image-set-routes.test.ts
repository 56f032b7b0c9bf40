import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { loadGridImages } from '@codebook/runtime/images'
import { ErrorBody, ImageSet, ImageSetList } from '@codebook/shared'
import type { FastifyInstance } from 'fastify'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../app.ts'
import { DIGITS_PNG } from '../datasets/demo-seed.ts'
import { cellPng, zipOf } from '../test-support/images.ts'
import { authHeaders, makeTempHome, testConfig, testDrivers } from '../test-support/test-server.ts'
import { createImageSetRepo } from './image-set-repo.ts'
import { DEMO_IMAGE_SET_NAME, seedDemoImageSet } from './image-set-seed.ts'

/** Greyscale bytes of a PNG (the server's answer or a source cell), for pixel comparisons. */
async function grey(png: Buffer): Promise<number[]> {
  return Array.from(await sharp(png).greyscale().raw().toBuffer())
}

describe.each(testDrivers())('image sets on $name', (driver) => {
  let app: FastifyInstance
  let home: string
  let cleanup: () => Promise<void>

  beforeAll(async () => {
    const h = await makeTempHome()
    const db = await driver.create()
    home = h.home
    app = await buildApp(testConfig(h.home, db.databaseUrl))
    cleanup = async () => {
      await app.close()
      await db.drop()
      await h.remove()
    }
  })
  afterAll(() => cleanup())

  function put(query: string, body: Buffer) {
    return app.inject({
      method: 'PUT',
      url: `/api/image-sets?${query}`,
      headers: { ...authHeaders, 'content-type': 'application/octet-stream' },
      payload: body,
    })
  }

  async function list() {
    return ImageSetList.parse((await app.inject({ method: 'GET', url: '/api/image-sets' })).json()).imageSets
  }

  /** Nothing of a failed upload may stay: no staged upload, no set folder, no row. */
  async function expectNothingLeft(sets: number, folders: string[]) {
    expect(await readdir(join(home, 'uploads'))).toEqual([])
    expect((await readdir(join(home, 'image-sets'))).sort()).toEqual(folders)
    expect(await list()).toHaveLength(sets)
  }

  it('stores a grid image set and serves its cells as PNG', async () => {
    const { readFile } = await import('node:fs/promises')
    const res = await put('name=digits&kind=grid&grid=20x20&rowsPerClass=5', await readFile(DIGITS_PNG))
    expect(res.statusCode).toBe(201)
    const set = ImageSet.parse(res.json())
    expect(set).toMatchObject({
      name: 'digits',
      kind: 'grid',
      status: 'ready',
      count: 5000,
      classes: ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'],
      grid: { cellWidth: 20, cellHeight: 20, rowsPerClass: 5 },
      error: null,
    })
    expect((await list()).map((s) => s.id)).toEqual([set.id])

    // Independent oracle: the runtime's grid loader's cells (index = row-major cell number).
    const { images } = await loadGridImages(DIGITS_PNG, { cellWidth: 20, cellHeight: 20, rowsPerClass: 5 })
    for (const index of [0, 1, 99, 100, 1234, 4999]) {
      const png = await app.inject({ method: 'GET', url: `/api/image-sets/${set.id}/images/${index}.png` })
      expect(png.statusCode).toBe(200)
      expect(png.headers['content-type']).toBe('image/png')
      const pixels = await grey(png.rawPayload)
      expect(pixels).toEqual(Array.from(images[index]!.pixels, (v) => Math.round(v * 255)))
    }
    const missing = await app.inject({ method: 'GET', url: `/api/image-sets/${set.id}/images/5000.png` })
    expect(missing.statusCode).toBe(404)
    expect(ErrorBody.parse(missing.json()).code).toBe('IMAGE_NOT_FOUND')

    const del = await app.inject({ method: 'DELETE', url: `/api/image-sets/${set.id}`, headers: authHeaders })
    expect(del.statusCode).toBe(204)
    expect((await app.inject({ method: 'GET', url: `/api/image-sets/${set.id}` })).statusCode).toBe(404)
    await expectNothingLeft(0, [])
  })

  it('rejects bad grid uploads with a coded 400 naming the upload, leaving nothing behind', async () => {
    const { readFile } = await import('node:fs/promises')
    const png = await readFile(DIGITS_PNG)
    const cases: [string, Buffer, string, string][] = [
      ['name=odd&kind=grid&grid=30x20&rowsPerClass=5', png, 'GRID_MISMATCH', 'odd'],
      ['name=norows&kind=grid&grid=20x20', png, 'IMAGE_SET_BAD_QUERY', 'rowsPerClass'],
      [
        'name=text&kind=grid&grid=20x20&rowsPerClass=5',
        Buffer.from('not an image'),
        'IMAGE_UNREADABLE',
        'text',
      ],
      ['name=one&kind=grid&grid=20x20&rowsPerClass=50', png, 'EVAL_ONE_CLASS', 'one'],
    ]
    for (const [query, body, code, names] of cases) {
      const res = await put(query, body)
      expect(res.statusCode, query).toBe(400)
      const error = ErrorBody.parse(res.json())
      expect(error.code, query).toBe(code)
      expect(error.message, query).toContain(names)
      expect(error.message, query).not.toContain(home)
    }
    const noAuth = await app.inject({
      method: 'PUT',
      url: '/api/image-sets?name=x&kind=grid&grid=20x20&rowsPerClass=5',
      payload: png,
      headers: { 'content-type': 'application/octet-stream' },
    })
    expect(noAuth.statusCode).toBe(401)
    await expectNothingLeft(0, [])
  })

  it('stores a zip of class folders and serves its entries as PNG', async () => {
    const files: [string, Buffer][] = []
    for (const [label, name] of ['cat', 'ant', 'bee'].entries())
      for (let j = 0; j < 3; j++) files.push([`${name}/${j}.png`, await cellPng(label * 500 + j)])
    const res = await put('name=bugs&kind=zip', await zipOf(files))
    expect(res.statusCode).toBe(201)
    const set = ImageSet.parse(res.json())
    expect(set).toMatchObject({ kind: 'zip', count: 9, classes: ['ant', 'bee', 'cat'], grid: null })
    // Label order: ant (cells 500…), bee (1000…), cat (0…); index 4 is bee/1.png.
    const png = await app.inject({ method: 'GET', url: `/api/image-sets/${set.id}/images/4.png` })
    expect(png.statusCode).toBe(200)
    expect(await grey(png.rawPayload)).toEqual(await grey(await cellPng(1001)))
    await app.inject({ method: 'DELETE', url: `/api/image-sets/${set.id}`, headers: authHeaders })
  })

  it('rejects bad zips with a coded 400 naming the entry, leaving nothing behind', async () => {
    const png = await cellPng(0)
    const slip = await zipOf([
      ['0/a.png', png],
      ['zz/x.png', png],
    ])
    // yazl will not write '..': patch the same-length name in the local header and central directory.
    for (let at = slip.indexOf('zz/x.png'); at >= 0; at = slip.indexOf('zz/x.png', at + 1))
      slip.write('../x.png', at)
    const cases: [string, Buffer, string, string][] = [
      ['not a zip', png, 'BAD_ZIP', 'broken'],
      [
        'loose',
        await zipOf([
          ['a.png', png],
          ['b.png', png],
        ]),
        'NO_CLASS_FOLDERS',
        'class folder',
      ],
      [
        'text entry',
        await zipOf([
          ['0/a.png', png],
          ['1/readme.md', Buffer.from('# hi')],
        ]),
        'NOT_AN_IMAGE',
        "'1/readme.md'",
      ],
      [
        'broken image',
        await zipOf([
          ['0/a.png', png],
          ['1/b.png', png.subarray(0, 30)],
        ]),
        'UNDECODABLE_IMAGE',
        "'1/b.png'",
      ],
      ['zip slip', slip, 'ZIP_UNSAFE_PATH', "'../x.png'"],
      ['one class', await zipOf([['0/a.png', png]]), 'EVAL_ONE_CLASS', 'broken'],
    ]
    for (const [what, body, code, names] of cases) {
      const res = await put('name=broken&kind=zip', body)
      expect(res.statusCode, what).toBe(400)
      const error = ErrorBody.parse(res.json())
      expect(error.code, what).toBe(code)
      expect(error.message, what).toContain(names)
    }
    const gridParams = await put('name=z&kind=zip&grid=20x20', await zipOf([['0/a.png', png]]))
    expect(ErrorBody.parse(gridParams.json()).code).toBe('IMAGE_SET_BAD_QUERY')
    await expectNothingLeft(0, [])
  })

  it('seeds the digits image set once, and not again after it is deleted', async () => {
    const repo = createImageSetRepo(app.db)
    const deps = { repo, service: app.imageSets, uploads: join(home, 'uploads'), log: app.log }
    const id = await seedDemoImageSet(deps)
    expect(id).toBeDefined()
    const [demo] = await list()
    expect(demo).toMatchObject({ id, name: DEMO_IMAGE_SET_NAME, kind: 'grid', count: 5000, status: 'ready' })
    await app.inject({ method: 'DELETE', url: `/api/image-sets/${id}`, headers: authHeaders })
    expect(await seedDemoImageSet(deps)).toBeUndefined()
    await expectNothingLeft(0, [])
  })
})

describe('image-set seeding at start', () => {
  it('seeds the demo on a new home when seedDemo is on', async () => {
    const h = await makeTempHome()
    const app = await buildApp(testConfig(h.home, undefined, { seedDemo: true }))
    try {
      await expect
        .poll(
          async () =>
            ImageSetList.parse((await app.inject({ method: 'GET', url: '/api/image-sets' })).json())
              .imageSets,
          { timeout: 60_000, interval: 250 },
        )
        .toEqual([expect.objectContaining({ name: DEMO_IMAGE_SET_NAME, count: 5000 })])
    } finally {
      await app.close()
      await h.remove()
    }
  })
})
