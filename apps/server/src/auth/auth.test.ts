import { readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { ErrorBody } from '@codebook/shared'
import { describe, expect, it } from 'vitest'
import { buildApp } from '../app.ts'
import { authHeaders, makeTempHome, TEST_API_TOKEN, testConfig } from '../test-support/test-server.ts'
import { API_TOKEN_FILE } from './api-token.ts'

describe('API token', () => {
  it('rejects writes without or with a wrong token, accepts the right one, leaves reads open', async () => {
    const home = await makeTempHome()
    const app = await buildApp(testConfig(home.home, undefined))
    try {
      const url = '/api/datasets?name=x&format=hog-text&wait=true'
      const none = await app.inject({ method: 'POST', url, payload: '1 2 3 4 5\n' })
      expect(none.statusCode).toBe(401)
      expect(ErrorBody.parse(none.json()).code).toBe('UNAUTHORIZED')

      const wrong = await app.inject({
        method: 'POST',
        url,
        headers: { authorization: `Bearer ${TEST_API_TOKEN}x` },
        payload: '1 2 3 4 5\n',
      })
      expect(wrong.statusCode).toBe(401)
      expect(ErrorBody.parse(wrong.json()).code).toBe('INVALID_TOKEN')

      const basic = await app.inject({
        method: 'POST',
        url,
        headers: { authorization: `Basic ${TEST_API_TOKEN}` },
        payload: '1 2 3 4 5\n',
      })
      expect(ErrorBody.parse(basic.json()).code).toBe('UNAUTHORIZED')

      // The scheme is matched case-insensitively (RFC 9110) and spaces around the token are
      // tolerated; the token itself is exact, and a token with a space inside is no token.
      const spellings = [
        [`bearer ${TEST_API_TOKEN}`, 404],
        [`BEARER ${TEST_API_TOKEN}`, 404],
        [`Bearer    ${TEST_API_TOKEN}   `, 404],
        [`Bearer\t${TEST_API_TOKEN}`, 404],
        [`Bearer ${TEST_API_TOKEN.toUpperCase()}`, 401],
        [`Bearer ${TEST_API_TOKEN} x`, 401],
        [`Bearer${TEST_API_TOKEN}`, 401],
      ] as const
      for (const [authorization, status] of spellings) {
        const res = await app.inject({
          method: 'DELETE',
          url: '/api/datasets/missing',
          headers: { authorization },
        })
        expect(res.statusCode, authorization).toBe(status)
      }

      // tus creation is a write too.
      const tus = await app.inject({
        method: 'POST',
        url: '/files',
        headers: { 'tus-resumable': '1.0.0', 'upload-length': '10' },
      })
      expect(tus.statusCode).toBe(401)

      // Nothing was created by the refused writes.
      const list = await app.inject({ method: 'GET', url: '/api/datasets' })
      expect(list.statusCode).toBe(200)
      expect(list.json().datasets).toEqual([])

      const ok = await app.inject({ method: 'POST', url, headers: authHeaders, payload: '1 2 3 4 5\n' })
      expect(ok.statusCode).toBe(201)
    } finally {
      await app.close()
      await home.remove()
    }
  })

  it('generates a token at the first start of a home, keeps it private, and reuses it', async () => {
    const home = await makeTempHome()
    try {
      const first = await buildApp(testConfig(home.home, undefined, { apiToken: undefined }))
      const created = first.apiToken
      await first.close()
      expect(created.source).toBe('created')
      expect(created.token.length).toBeGreaterThanOrEqual(32)
      const file = join(home.home, API_TOKEN_FILE)
      expect((await readFile(file, 'utf8')).trim()).toBe(created.token)
      expect((await stat(file)).mode & 0o077).toBe(0)

      const second = await buildApp(testConfig(home.home, undefined, { apiToken: undefined }))
      try {
        expect(second.apiToken).toMatchObject({ source: 'file', token: created.token })
        const res = await second.inject({
          method: 'DELETE',
          url: '/api/datasets/missing',
          headers: { authorization: `Bearer ${created.token}` },
        })
        expect(res.statusCode).toBe(404)
      } finally {
        await second.close()
      }

      // CODEBOOK_API_TOKEN wins over the stored one.
      const third = await buildApp(testConfig(home.home, undefined, { apiToken: 'configured-token-123456' }))
      try {
        expect(third.apiToken.source).toBe('env')
        const res = await third.inject({
          method: 'DELETE',
          url: '/api/datasets/missing',
          headers: { authorization: `Bearer ${created.token}` },
        })
        expect(res.json().code).toBe('INVALID_TOKEN')
      } finally {
        await third.close()
      }
    } finally {
      await home.remove()
    }
  })
})
