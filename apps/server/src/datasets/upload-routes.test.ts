import { readdir } from 'node:fs/promises'
import { request as httpRequest } from 'node:http'
import {
  DATASET_ID_HEADER,
  type DatasetEvent,
  DatasetPreview,
  ErrorBody,
  serverEventSchemas,
  socketEvents,
  TUS_PATH,
  UploadDataset,
} from '@codebook/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../start-server.ts'
import { connected, type EventClient, eventClient } from '../test-support/event-client.ts'
import { hogText, makeVectors } from '../test-support/payloads.ts'
import { authHeaders, makeTempHome, testConfig, testDrivers } from '../test-support/test-server.ts'

const tusHeaders = { 'Tus-Resumable': '1.0.0', ...authHeaders }

function uploadMetadata(fields: Record<string, string>): string {
  return Object.entries(fields)
    .map(([key, value]) => `${key} ${Buffer.from(value).toString('base64')}`)
    .join(',')
}

/** Sends the first `sent` bytes of a PATCH that announces more, then drops the connection: a lost network. */
function patchAndDrop(url: string, offset: number, body: Buffer, sent: number): Promise<void> {
  return new Promise((resolve) => {
    const req = httpRequest(url, {
      method: 'PATCH',
      headers: {
        ...tusHeaders,
        'Upload-Offset': String(offset),
        'Content-Type': 'application/offset+octet-stream',
        'Content-Length': String(body.length),
      },
    })
    req.on('error', () => resolve())
    req.on('close', () => resolve())
    req.write(body.subarray(0, sent), () => setTimeout(() => req.destroy(), 100))
  })
}

async function headOffset(url: string): Promise<number> {
  const res = await fetch(url, { method: 'HEAD', headers: tusHeaders })
  expect(res.status).toBe(200)
  return Number(res.headers.get('upload-offset'))
}

describe.each(testDrivers())('tus uploads on $name', (driver) => {
  let server: RunningServer
  let socket: EventClient
  const events: DatasetEvent[] = []
  let cleanup: () => Promise<void>

  beforeAll(async () => {
    const home = await makeTempHome()
    const db = await driver.create()
    server = await startServer(testConfig(home.home, db.databaseUrl, { maxUploadBytes: 10_000_000 }))
    socket = eventClient(server.url)
    socket.on(socketEvents.datasetEvent, (event) =>
      events.push(serverEventSchemas[socketEvents.datasetEvent].parse(event)),
    )
    await connected(socket)
    cleanup = async () => {
      socket.close()
      await server.close()
      await db.drop()
      await home.remove()
    }
  })
  afterAll(() => cleanup())

  it('resumes an interrupted upload and turns it into a ready dataset', async () => {
    const v = makeVectors(400, 24, 7)
    const file = Buffer.from(hogText(v))
    const create = await fetch(`${server.url}${TUS_PATH}`, {
      method: 'POST',
      headers: {
        ...tusHeaders,
        'Upload-Length': String(file.length),
        'Upload-Metadata': uploadMetadata({ name: 'tus set', filename: 'set.txt', format: 'hog-text' }),
      },
    })
    expect(create.status).toBe(201)
    const uploadUrl = new URL(create.headers.get('location')!, server.url).toString()
    const uploadId = uploadUrl.split('/').pop()!

    const first = 10_000
    const patch1 = await fetch(uploadUrl, {
      method: 'PATCH',
      headers: { ...tusHeaders, 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' },
      body: file.subarray(0, first),
    })
    expect(patch1.status).toBe(204)
    expect(Number(patch1.headers.get('upload-offset'))).toBe(first)

    // The connection dies part-way through the second chunk; the client asks where to resume.
    await patchAndDrop(uploadUrl, first, file.subarray(first, first + 20_000), 8_000)
    const offset = await headOffset(uploadUrl)
    expect(offset).toBeGreaterThanOrEqual(first)
    expect(offset).toBeLessThanOrEqual(first + 8_000)

    const last = await fetch(uploadUrl, {
      method: 'PATCH',
      headers: {
        ...tusHeaders,
        'Upload-Offset': String(offset),
        'Content-Type': 'application/offset+octet-stream',
      },
      body: file.subarray(offset),
    })
    expect(last.status).toBe(204)
    expect(Number(last.headers.get('upload-offset'))).toBe(file.length)
    const datasetId = last.headers.get(DATASET_ID_HEADER)
    expect(datasetId).toBeTruthy()

    // Also discoverable when that response is lost.
    const lookup = await fetch(`${server.url}/api/uploads/${uploadId}`)
    expect(UploadDataset.parse(await lookup.json())).toEqual({ datasetId })

    const ready = await server.app.datasets.settled(datasetId!)
    expect(ready).toMatchObject({ status: 'ready', n: 400, d: 24, name: 'tus set', sourceBytes: file.length })
    // The upload and its tus metadata file are removed once processed.
    expect(await readdir(server.app.home.uploads)).toEqual([])
    const preview = DatasetPreview.parse(
      await (await fetch(`${server.url}/api/datasets/${datasetId}/preview?rows=400`)).json(),
    )
    // Every byte arrived once and in order: the stored rows are the uploaded rows.
    expect(preview.rows.map((r) => r.values)).toEqual(
      Array.from({ length: v.n }, (_, i) => Array.from(v.values.subarray(i * v.d, (i + 1) * v.d))),
    )

    // socket.io clients saw the dataset appear and become ready.
    await expect
      .poll(() =>
        events.filter((e) => e.datasetId === datasetId && e.type === 'state').map((e) => e.data.status),
      )
      .toEqual(['processing', 'ready'])
    const progress = events.filter((e) => e.datasetId === datasetId && e.type === 'progress')
    expect(progress.length).toBeGreaterThan(0)
    for (const e of progress) expect(e.data.fraction).toBeGreaterThan(0)
  })

  it('rejects an upload without a name with a coded body the client can show', async () => {
    const res = await fetch(`${server.url}${TUS_PATH}`, {
      method: 'POST',
      headers: { ...tusHeaders, 'Upload-Length': '10', 'Upload-Metadata': uploadMetadata({ format: 'npy' }) },
    })
    expect(res.status).toBe(400)
    const body = JSON.parse(await res.text())
    expect(body.code).toBe('VALIDATION_FAILED')
    expect(body.message).toContain('name')
  })

  it('rejects an upload over the size limit', async () => {
    const res = await fetch(`${server.url}${TUS_PATH}`, {
      method: 'POST',
      headers: {
        ...tusHeaders,
        'Upload-Length': '10000001',
        'Upload-Metadata': uploadMetadata({ name: 'x' }),
      },
    })
    expect(res.status).toBe(413)
  })

  it('answers UPLOAD_NOT_FOUND for an unknown upload id', async () => {
    const res = await fetch(`${server.url}/api/uploads/nope`)
    expect(res.status).toBe(404)
    expect(ErrorBody.parse(await res.json()).code).toBe('UPLOAD_NOT_FOUND')
  })
})
