import { readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../app.ts'
import { makeTempHome, testConfig } from '../test-support/test-server.ts'
import { createDatasetRepo } from './dataset-repo.ts'
import { createDatasetService } from './dataset-service.ts'
import { freeBytes } from './disk-space.ts'

/**
 * 256 MiB of valid CSV rows in a ~780 KB gzip: one 16 MiB member of whole 64-byte lines (8 values
 * of 8 bytes, stored as 32 bytes of float32), repeated (gunzip reads concatenated members as one
 * stream).
 */
function expandingGzip(): Buffer {
  const line = `${'1.00000,'.repeat(7)}1.00000\n`
  const member = gzipSync(Buffer.alloc(16 * 1024 ** 2, line), { level: 9 })
  return Buffer.concat(Array.from({ length: 16 }, () => member))
}

/** A test cannot fill the disk: it raises the reserve instead, so the free space above it is small. */
describe('free disk space and imports', () => {
  let home: Awaited<ReturnType<typeof makeTempHome>>
  let app: FastifyInstance
  beforeAll(async () => {
    home = await makeTempHome()
    app = await buildApp(testConfig(home.home, undefined))
  })
  afterAll(async () => {
    await app.close()
    await home.remove()
  })

  /** Stores `body` as an upload, then imports it with a service whose reserve is `reserve(free bytes now)`. */
  async function importWith(body: Buffer, reserve: (free: number) => number) {
    const uploadId = `space-${Math.random().toString(36).slice(2)}`
    const uploadPath = join(app.home.uploads, uploadId)
    await writeFile(uploadPath, body)
    const service = createDatasetService({
      repo: createDatasetRepo(app.db),
      paths: app.home,
      emit: () => undefined,
      log: app.log,
      importOptions: { maxExpandedBytes: 256 * 1024 ** 3 },
      diskReserveBytes: reserve(await freeBytes(app.home.datasets)),
    })
    try {
      const started = await service.startImport({
        name: uploadId,
        format: 'csv',
        uploadPath,
        uploadId,
        sourceBytes: body.length,
      })
      return await service.settled(started.id)
    } finally {
      await service.shutdown()
    }
  }

  it('refuses an upload larger than the free space above the reserve, naming the numbers', async () => {
    const dataset = await importWith(Buffer.from('1,2\n3,4\n'), (free) => free + 1024 ** 3)
    expect(dataset).toMatchObject({ status: 'failed', error: { code: 'INSUFFICIENT_SPACE' } })
    const message = dataset.error!.message
    expect(message).toMatch(
      /needs about 8 bytes of disk to import, more than the 0 it may use \(\d+ bytes free on the data disk, \d+ kept in reserve\)/,
    )
    expect(message).not.toContain(home.home)
    expect(await readdir(app.home.uploads)).toEqual([])
  })

  it('lets a gzip expand only into the free space above the reserve: INSUFFICIENT_SPACE, nothing stored', async () => {
    // 32 MiB usable (give or take what other processes write meanwhile); the gzip expands to
    // 256 MiB, its output would be half that.
    const dataset = await importWith(expandingGzip(), (free) => free - 32 * 1024 ** 2)
    expect(dataset).toMatchObject({ status: 'failed', error: { code: 'INSUFFICIENT_SPACE' } })
    expect(dataset.error!.message).toMatch(
      /^the gzip expands past the \d+ bytes of disk this import may use \(\d+ bytes free on the data disk, \d+ kept in reserve\)/,
    )
    expect(dataset.error!.message).not.toContain(home.home)
    expect((await readdir(app.home.datasets)).filter((n) => n.includes(dataset.id))).toEqual([])
    expect(await readdir(app.home.uploads)).toEqual([])
  }, 60_000)

  it('stops an import whose output outgrows the free space (the child watches the disk)', async () => {
    // 24 MiB of `1,2,…` text passes the size check against 40 MiB of room; stored as float32 it
    // would take 48 MiB.
    const text = Buffer.alloc(24 * 1024 ** 2, '1,2,3,4,5,6,7,8\n')
    const dataset = await importWith(text, (free) => free - 40 * 1024 ** 2)
    expect(dataset).toMatchObject({ status: 'failed', error: { code: 'INSUFFICIENT_SPACE' } })
    expect(dataset.error!.message).toMatch(/^the free space fell under the reserve during the import \(/)
    expect((await readdir(app.home.datasets)).filter((n) => n.includes(dataset.id))).toEqual([])
  }, 60_000)

  it('imports normally with the default reserve', async () => {
    const dataset = await importWith(gzipSync('1,2\n3,4\n'), () => 1024 ** 3)
    expect(dataset).toMatchObject({ status: 'ready', n: 2, d: 2 })
  })
})
