import { readdir } from 'node:fs/promises'
import { ErrorBody } from '@codebook/shared'
import { describe, expect, it } from 'vitest'
import { buildApp } from '../app.ts'
import { redactUrl } from '../http/request-log.ts'
import { hogText, makeVectors } from '../test-support/payloads.ts'
import { authHeaders, makeTempHome, testConfig } from '../test-support/test-server.ts'

const tusHeaders = { 'tus-resumable': '1.0.0', ...authHeaders }
const b64 = (text: string) => Buffer.from(text).toString('base64')

describe('names and abandoned uploads', () => {
  it('refuses unprintable names with a coded 400 and leaves no file, direct or through tus', async () => {
    const home = await makeTempHome()
    const app = await buildApp(testConfig(home.home, undefined))
    try {
      const payload = hogText(makeVectors(3, 4, 1))
      for (const name of ['a\u0000b', 'line\nbreak', 'x\u202Eevil', ' ', 'n'.repeat(201)]) {
        const direct = await app.inject({
          method: 'POST',
          url: `/api/datasets?name=${encodeURIComponent(name)}&wait=true`,
          headers: authHeaders,
          payload,
        })
        expect(direct.statusCode, JSON.stringify(name)).toBe(400)
        // A NUL is refused by the server-wide guard before the route's schema sees the name.
        expect(ErrorBody.parse(direct.json()).code).toBe(
          name.includes('\u0000') ? 'NUL_IN_INPUT' : 'VALIDATION_FAILED',
        )

        const tus = await app.inject({
          method: 'POST',
          url: '/files',
          headers: { ...tusHeaders, 'upload-length': '10', 'upload-metadata': `name ${b64(name)}` },
        })
        expect(tus.statusCode, JSON.stringify(name)).toBe(400)
        expect(JSON.parse(tus.body).code).toBe('VALIDATION_FAILED')
      }
      const fileName = await app.inject({
        method: 'POST',
        url: '/files',
        headers: {
          ...tusHeaders,
          'upload-length': '10',
          'upload-metadata': `name ${b64('ok')},filename ${b64('a\u0000.txt')}`,
        },
      })
      expect(fileName.statusCode).toBe(400)
      expect(await readdir(app.home.uploads)).toEqual([])
      expect((await app.inject({ method: 'GET', url: '/api/datasets' })).json().datasets).toEqual([])
    } finally {
      await app.close()
      await home.remove()
    }
  })

  it('deletes unfinished uploads once they expire, and keeps fresh ones', async () => {
    const home = await makeTempHome()
    const create = async (expiryMs: number) => {
      const app = await buildApp(testConfig(home.home, undefined, { uploadExpiryMs: expiryMs }))
      const res = await app.inject({
        method: 'POST',
        url: '/files',
        headers: { ...tusHeaders, 'upload-length': '1000', 'upload-metadata': `name ${b64('abandoned')}` },
      })
      expect(res.statusCode).toBe(201)
      // tus announces the expiry to the client.
      expect(res.headers['upload-expires']).toBeDefined()
      return app
    }
    try {
      // A long expiry: a restart keeps the unfinished upload.
      await (await create(3600_000)).close()
      const kept = await buildApp(testConfig(home.home, undefined, { uploadExpiryMs: 3600_000 }))
      const before = await readdir(kept.home.uploads)
      await kept.close()
      expect(before.length).toBe(2) // the data file and its .json metadata

      // 1 ms: by the next start (its sweep runs when the server is ready) both are expired.
      const short = await buildApp(testConfig(home.home, undefined, { uploadExpiryMs: 1 }))
      try {
        expect(await readdir(short.home.uploads)).toEqual([])
      } finally {
        await short.close()
      }
    } finally {
      await home.remove()
    }
  })
})

describe('request log', () => {
  it('never writes a token from the query', () => {
    expect(redactUrl('/?token=s3cret')).toBe('/?token=REDACTED')
    expect(redactUrl('/runs/1?x=1&token=s3cret&y=2')).toBe('/runs/1?x=1&token=REDACTED&y=2')
    expect(redactUrl('/api/runs')).toBe('/api/runs')
    expect(redactUrl('/?access_token=a%20b')).not.toContain('a%20b')
  })
})
