import { existsSync } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { Dataset, DatasetList, DatasetPreview, ErrorBody } from '@codebook/shared'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../app.ts'
import { hogText, makeVectors, npyFloat32, type TestVectors } from '../test-support/payloads.ts'
import { authHeaders, makeTempHome, testConfig, testDrivers } from '../test-support/test-server.ts'

/** Expected preview rows, computed from the test's own vectors. */
function expectedRows(v: TestVectors, count: number, withIds: boolean) {
  return Array.from({ length: Math.min(count, v.n) }, (_, i) => ({
    index: i,
    ids: withIds ? Array.from(v.ids.subarray(i * 3, i * 3 + 3)) : null,
    picture: null,
    values: Array.from(v.values.subarray(i * v.d, (i + 1) * v.d)),
  }))
}

describe.each(testDrivers())('datasets API on $name', (driver) => {
  const maxUploadBytes = 200_000
  let app: FastifyInstance
  let cleanup: () => Promise<void>

  beforeAll(async () => {
    const home = await makeTempHome()
    const db = await driver.create()
    app = await buildApp(testConfig(home.home, db.databaseUrl, { maxUploadBytes }))
    cleanup = async () => {
      await app.close()
      await db.drop()
      await home.remove()
    }
  })
  afterAll(() => cleanup())

  it('imports HOG text posted as the raw body, lists, previews and deletes it', async () => {
    const v = makeVectors(30, 7, 1)
    const res = await app.inject({
      method: 'POST',
      url: '/api/datasets?name=hog%20one&format=hog-text&wait=true',
      headers: { ...authHeaders, 'content-type': 'text/plain' },
      payload: hogText(v),
    })
    expect(res.statusCode).toBe(201)
    const ready = Dataset.parse(res.json())
    expect(ready).toMatchObject({
      name: 'hog one',
      status: 'ready',
      n: 30,
      d: 7,
      dtype: 'float32',
      format: 'hog-text',
    })
    expect(ready.progress).toBe(1)
    expect(ready.sourceBytes).toBe(Buffer.byteLength(hogText(v)))

    const list = DatasetList.parse((await app.inject({ method: 'GET', url: '/api/datasets' })).json())
    expect(list.datasets.map((d) => d.id)).toContain(ready.id)
    const detail = await app.inject({ method: 'GET', url: `/api/datasets/${ready.id}` })
    expect(Dataset.parse(detail.json())).toEqual(ready)

    const preview = DatasetPreview.parse(
      (await app.inject({ method: 'GET', url: `/api/datasets/${ready.id}/preview?rows=5` })).json(),
    )
    expect(preview.rows).toEqual(expectedRows(v, 5, true))
    expect(preview.stats).toMatchObject({ n: 30, d: 7, hasIds: true })
    // Independent check of the stored stats: per-dimension minimum computed here.
    const min = Array.from({ length: v.d }, (_, j) =>
      Math.min(...expectedRows(v, v.n, false).map((r) => r.values[j]!)),
    )
    expect(preview.stats.dims.min).toEqual(min)

    const dir = join(app.home.datasets, ready.id)
    expect(existsSync(dir)).toBe(true)
    const del = await app.inject({ method: 'DELETE', headers: authHeaders, url: `/api/datasets/${ready.id}` })
    expect(del.statusCode).toBe(204)
    expect(existsSync(dir)).toBe(false)
    expect((await app.inject({ method: 'GET', url: `/api/datasets/${ready.id}` })).statusCode).toBe(404)
  })

  it('previews HOG rows whose picture ids are names with each row’s name and notes the conversion', async () => {
    const names = ['12345678_9abcdef012_o.jpg', 'img_0', 'photo-é.png']
    const lines = [`${names[0]} 0 0 1 2`, `${names[1]} 4 5 3 4`, `${names[0]} 0 1 5 6`, `${names[2]} 2 3 7 8`]
    const res = await app.inject({
      method: 'POST',
      url: '/api/datasets?name=named&format=hog-text&wait=true',
      headers: { ...authHeaders, 'content-type': 'text/plain' },
      payload: `${lines.join('\n')}\n`,
    })
    expect(res.statusCode).toBe(201)
    const id = Dataset.parse(res.json()).id
    const preview = DatasetPreview.parse(
      (await app.inject({ method: 'GET', url: `/api/datasets/${id}/preview?rows=4` })).json(),
    )
    expect(preview.rows.map((r) => [r.picture, ...r.ids!.slice(1)])).toEqual(
      lines.map((line) => {
        const [name, row, col] = line.split(' ')
        return [name, Number(row), Number(col)]
      }),
    )
    expect(preview.stats.notes?.join(' ')).toMatch(/picture ids are names/)

    // The name table, for the .npy assignments' picture indices: line i names index i.
    const table = await app.inject({ method: 'GET', url: `/api/datasets/${id}/picture-names` })
    expect(table.statusCode).toBe(200)
    expect(table.headers['content-type']).toBe('text/plain; charset=utf-8')
    expect(table.headers['content-disposition']).toBe(`attachment; filename="picture-names-${id}.txt"`)
    expect(table.body.split('\n').filter((l) => l !== '')).toEqual(names)
  })

  it('answers 404 NO_PICTURE_NAMES for a dataset whose picture ids are numbers', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/datasets?name=numbered&format=hog-text&wait=true',
      headers: { ...authHeaders, 'content-type': 'text/plain' },
      payload: '0 0 0 1 2\n1 0 0 3 4\n',
    })
    const id = Dataset.parse(res.json()).id
    const table = await app.inject({ method: 'GET', url: `/api/datasets/${id}/picture-names` })
    expect(table.statusCode).toBe(404)
    expect(table.json()).toMatchObject({ code: 'NO_PICTURE_NAMES' })
    const missing = await app.inject({ method: 'GET', url: '/api/datasets/nope/picture-names' })
    expect(missing.json()).toMatchObject({ code: 'DATASET_NOT_FOUND' })
  })

  it('imports a gzipped HOG text sent with PUT and no content type (curl -T)', async () => {
    const v = makeVectors(12, 4, 2)
    const res = await app.inject({
      method: 'PUT',
      headers: authHeaders,
      url: '/api/datasets?name=gz&wait=true',
      payload: gzipSync(hogText(v)),
    })
    expect(res.statusCode).toBe(201)
    const ready = Dataset.parse(res.json())
    expect(ready).toMatchObject({ n: 12, d: 4, format: 'hog-text' })
    const preview = DatasetPreview.parse(
      (await app.inject({ method: 'GET', url: `/api/datasets/${ready.id}/preview` })).json(),
    )
    expect(preview.rows).toEqual(expectedRows(v, 20, true))
  })

  it('answers 202 at once for a .npy upload and finishes it in the background', async () => {
    const v = makeVectors(50, 16, 3)
    const res = await app.inject({
      method: 'POST',
      url: '/api/datasets?name=npy&format=npy',
      headers: { ...authHeaders, 'content-type': 'application/octet-stream' },
      payload: npyFloat32(v),
    })
    expect(res.statusCode).toBe(202)
    const accepted = Dataset.parse(res.json())
    expect(accepted).toMatchObject({ status: 'processing', n: null, format: 'npy' })
    const ready = await app.datasets.settled(accepted.id)
    expect(ready).toMatchObject({ status: 'ready', n: 50, d: 16, dtype: 'float32' })
    const preview = DatasetPreview.parse(
      (await app.inject({ method: 'GET', url: `/api/datasets/${accepted.id}/preview?rows=50` })).json(),
    )
    expect(preview.rows).toEqual(expectedRows(v, 50, false))
    // Newest first.
    const list = DatasetList.parse((await app.inject({ method: 'GET', url: '/api/datasets' })).json())
    expect(list.datasets[0]?.id).toBe(accepted.id)
  })

  it('records a malformed upload as failed with the runtime code and leaves no files', async () => {
    const good = hogText(makeVectors(5, 6, 4)).split('\n')
    good[2] = good[2]!.split(' ').slice(0, -1).join(' ') // line 3 loses a field
    const res = await app.inject({
      method: 'POST',
      headers: authHeaders,
      url: '/api/datasets?name=broken&format=hog-text&wait=true',
      payload: good.join('\n'),
    })
    expect(res.statusCode).toBe(422)
    const body = ErrorBody.parse(res.json())
    expect(body.code).toBe('WRONG_FIELD_COUNT')
    expect(body.message).toContain('line 3')
    expect(body.message).not.toContain(app.home.uploads)

    const list = DatasetList.parse((await app.inject({ method: 'GET', url: '/api/datasets' })).json())
    const failed = list.datasets.find((d) => d.name === 'broken')
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'WRONG_FIELD_COUNT' } })
    expect(existsSync(join(app.home.datasets, failed!.id))).toBe(false)
    const preview = await app.inject({ method: 'GET', url: `/api/datasets/${failed!.id}/preview` })
    expect(preview.json()).toMatchObject({ code: 'DATASET_NOT_READY' })
    // Only ready datasets have directories; the failed upload file is gone too.
    const leftovers = (await readdir(app.home.datasets)).filter((name) => name.includes(failed!.id))
    expect(leftovers).toEqual([])
    expect(await readdir(app.home.uploads)).toEqual([])
  })

  it('imports rows at the float32 extremes (3e38 -3e38) as ready, with finite stats', async () => {
    const postCsv = (name: string, payload: string) =>
      app.inject({
        method: 'POST',
        headers: { ...authHeaders, 'content-type': 'text/plain' },
        url: `/api/datasets?name=${name}&format=csv&wait=true`,
        payload,
      })
    const res = await postCsv('extremes', '3e38,-3e38\n-3e38,3e38\n1,2\n')
    expect(res.statusCode).toBe(201)
    const ready = Dataset.parse(res.json())
    expect(ready).toMatchObject({ status: 'ready', n: 3, d: 2 })
    const preview = await app.inject({ method: 'GET', url: `/api/datasets/${ready.id}/preview?rows=3` })
    const { stats } = DatasetPreview.parse(preview.json())
    // Stored values are float32: 3e38 is Math.fround(3e38).
    const f = Math.fround(3e38)
    expect(stats.norms.quantiles.at(-1)!.value / (Math.SQRT2 * f)).toBeCloseTo(1, 12)
    expect(stats.dims.max).toEqual([f, f])
    // Past float32's range: refused with a code naming the line, never a schema dump.
    const over = await postCsv('over', '1,2\n4e38,-4e38\n')
    expect(over.statusCode).toBe(422)
    expect(ErrorBody.parse(over.json())).toMatchObject({ code: 'NON_FINITE_VALUE' })
    expect(over.json().message).toContain('line 2')
  })

  it('rejects a body over the upload limit with UPLOAD_TOO_LARGE and keeps nothing', async () => {
    const res = await app.inject({
      method: 'POST',
      headers: authHeaders,
      url: '/api/datasets?name=big',
      payload: Buffer.alloc(maxUploadBytes + 1, 0x31),
    })
    expect(res.statusCode).toBe(413)
    expect(ErrorBody.parse(res.json()).code).toBe('UPLOAD_TOO_LARGE')
    expect(await readdir(app.home.uploads)).toEqual([])
    const list = DatasetList.parse((await app.inject({ method: 'GET', url: '/api/datasets' })).json())
    expect(list.datasets.some((d) => d.name === 'big')).toBe(false)
  })

  it('rejects a direct upload without a name', async () => {
    const res = await app.inject({
      method: 'POST',
      headers: authHeaders,
      url: '/api/datasets',
      payload: '1 2 3 4',
    })
    expect(res.statusCode).toBe(400)
    expect(ErrorBody.parse(res.json())).toMatchObject({ code: 'VALIDATION_FAILED' })
    expect(res.json().message).toContain('querystring.name')
  })
})
