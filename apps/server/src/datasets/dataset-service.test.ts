import { existsSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Dataset, DatasetList } from '@codebook/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../app.ts'
import { hogText, makeVectors } from '../test-support/payloads.ts'
import { authHeaders, makeTempHome, testConfig, testDrivers } from '../test-support/test-server.ts'
import { createDatasetRepo } from './dataset-repo.ts'

describe.each(testDrivers())('dataset lifecycle across restarts on $name', (driver) => {
  let home: Awaited<ReturnType<typeof makeTempHome>>
  let db: Awaited<ReturnType<typeof driver.create>>
  beforeAll(async () => {
    home = await makeTempHome()
    db = await driver.create()
  })
  afterAll(async () => {
    await db.drop()
    await home.remove()
  })

  it('marks a dataset left processing by a dead server as failed INTERRUPTED and removes its files', async () => {
    const config = testConfig(home.home, db.databaseUrl)
    const first = await buildApp(config)
    // What a server killed mid-import leaves behind: a processing record, a partial directory, the upload.
    const repo = createDatasetRepo(first.db)
    await repo.insert({
      id: 'dead-1',
      name: 'cut off',
      format: 'npy',
      sourceBytes: 10,
      uploadId: 'up-dead-1',
    })
    const partial = join(first.home.datasets, 'dead-1')
    await mkdir(partial)
    await writeFile(join(partial, 'vectors.npy'), 'partial')
    await writeFile(join(first.home.uploads, 'up-dead-1'), 'upload')
    // A temporary of an import whose record is gone, and a direct upload cut off mid-body.
    const orphan = join(first.home.datasets, '.gone-7.tmp-123-abcd')
    await mkdir(orphan)
    await writeFile(join(orphan, 'vectors.npy'), 'partial')
    await writeFile(join(first.home.uploads, 'direct-cut-off'), 'half a body')
    await first.close()

    const second = await buildApp(config)
    try {
      const res = await second.inject({ method: 'GET', url: '/api/datasets/dead-1' })
      expect(Dataset.parse(res.json())).toMatchObject({ status: 'failed', error: { code: 'INTERRUPTED' } })
      expect(existsSync(partial)).toBe(false)
      expect(existsSync(join(second.home.uploads, 'up-dead-1'))).toBe(false)
      expect(existsSync(orphan)).toBe(false)
      expect(existsSync(join(second.home.uploads, 'direct-cut-off'))).toBe(false)
    } finally {
      await second.close()
    }
  })

  it('cancels a running import on delete and on shutdown, leaving no files', async () => {
    const config = testConfig(home.home, db.databaseUrl)
    const app = await buildApp(config)
    // Large enough that the import is still running when the next request arrives.
    const payload = hogText(makeVectors(60_000, 32, 9))
    const post = async (name: string) =>
      Dataset.parse(
        (
          await app.inject({
            method: 'POST',
            headers: authHeaders,
            url: `/api/datasets?name=${name}&format=hog-text`,
            payload,
          })
        ).json(),
      )
    const deleted = await post('deleted')
    const del = await app.inject({
      method: 'DELETE',
      headers: authHeaders,
      url: `/api/datasets/${deleted.id}`,
    })
    expect(del.statusCode).toBe(204)
    expect(existsSync(join(app.home.datasets, deleted.id))).toBe(false)
    expect((await app.inject({ method: 'GET', url: `/api/datasets/${deleted.id}` })).statusCode).toBe(404)

    const cut = await post('cut')
    await app.close()
    const again = await buildApp(config)
    try {
      const list = DatasetList.parse((await again.inject({ method: 'GET', url: '/api/datasets' })).json())
      const record = list.datasets.find((d) => d.id === cut.id)
      // Either it finished before the shutdown, or it was settled as INTERRUPTED — never left processing.
      expect(record?.status).not.toBe('processing')
      if (record?.status === 'failed') {
        expect(record.error?.code).toBe('INTERRUPTED')
        expect(existsSync(join(again.home.datasets, cut.id))).toBe(false)
      }
    } finally {
      await again.close()
    }
  })
})
