import { DatasetList } from '@codebook/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../app.ts'
import { authHeaders, makeTempHome, testConfig } from '../test-support/test-server.ts'
import { createDatasetRepo } from './dataset-repo.ts'
import { DEMO_NAME, DEMO_SEEDED_KEY, seedDemo } from './demo-seed.ts'

describe('demo dataset seed', () => {
  let home: Awaited<ReturnType<typeof makeTempHome>>
  beforeAll(async () => {
    home = await makeTempHome()
  })
  afterAll(() => home.remove())

  it('seeds the digits demo once through the normal import, and not again after it is deleted', async () => {
    const app = await buildApp(testConfig(home.home, undefined, { seedDemo: true }))
    try {
      const list = async () =>
        DatasetList.parse((await app.inject({ method: 'GET', url: '/api/datasets' })).json()).datasets
      await expect
        .poll(async () => (await list())[0]?.status, { timeout: 60_000, interval: 250 })
        .toBe('ready')
      const [demo] = await list()
      // digits.png holds 5,000 digits of 20 × 20 px; dense HOG with 8-px patches at stride 4 gives
      // 4 × 4 = 16 patches per digit, each 2 × 2 cells × 8 orientation bins = 32 values.
      expect(demo).toMatchObject({ name: DEMO_NAME, format: 'hog-text', n: 5000 * 16, d: 32 })

      expect(
        (await app.inject({ method: 'DELETE', headers: authHeaders, url: `/api/datasets/${demo!.id}` }))
          .statusCode,
      ).toBe(204)
      const again = await seedDemo({
        repo: createDatasetRepo(app.db),
        service: app.datasets,
        paths: app.home,
        log: app.log,
      })
      expect(again).toBeUndefined()
      expect(await list()).toEqual([])
    } finally {
      await app.close()
    }
  })

  it('seeds the demo again when its first import failed (a first start cut short)', async () => {
    const other = await makeTempHome()
    const app = await buildApp(testConfig(other.home, undefined, { seedDemo: false }))
    try {
      const repo = createDatasetRepo(app.db)
      // What a first start killed mid-import leaves: the meta key, and the demo marked INTERRUPTED.
      const cut = await repo.insert({
        id: 'demo-cut',
        name: DEMO_NAME,
        format: 'hog-text',
        sourceBytes: 1,
        uploadId: null,
      })
      await repo.markFailed(cut.dataset.id, { code: 'INTERRUPTED', message: 'the server stopped' })
      await repo.setMeta(DEMO_SEEDED_KEY, { datasetId: cut.dataset.id })

      const id = await seedDemo({ repo, service: app.datasets, paths: app.home, log: app.log })
      expect(id).toBeDefined()
      expect(id).not.toBe(cut.dataset.id)
      expect(await repo.get(cut.dataset.id)).toBeUndefined()
      await expect
        .poll(async () => (await repo.get(id!))?.dataset.status, { timeout: 60_000, interval: 250 })
        .toBe('ready')
      // Once it is ready, a later start leaves it alone.
      expect(await seedDemo({ repo, service: app.datasets, paths: app.home, log: app.log })).toBeUndefined()
    } finally {
      await app.close()
      await other.remove()
    }
  })
})
