import { ErrorBody, Health } from '@codebook/shared'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp, WRITE_RATE_LIMIT_PER_MINUTE } from './app.ts'
import { authHeaders, makeTempHome, testConfig, testDrivers } from './test-support/test-server.ts'

describe.each(testDrivers())('app on $name', (driver) => {
  let app: FastifyInstance
  let cleanup: () => Promise<void>

  beforeAll(async () => {
    const home = await makeTempHome()
    const db = await driver.create()
    app = await buildApp(testConfig(home.home, db.databaseUrl))
    cleanup = async () => {
      await app.close()
      await db.drop()
      await home.remove()
    }
  })
  afterAll(() => cleanup())

  it('answers health with the Health schema and the active driver', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/health' })
    expect(res.statusCode).toBe(200)
    const health = Health.parse(res.json())
    expect(health.database).toBe(driver.name)
    expect(health.version).toBe('0.1.0')
  })

  it('serves an OpenAPI document built from the zod schemas', async () => {
    const res = await app.inject({ method: 'GET', url: '/docs/json' })
    expect(res.statusCode).toBe(200)
    const doc = res.json() as { openapi: string; paths: Record<string, Record<string, unknown>> }
    expect(doc.openapi).toMatch(/^3\./)
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/health',
        '/api/datasets',
        '/api/datasets/{id}',
        '/api/datasets/{id}/preview',
        '/api/studies',
        '/api/studies/{id}',
        '/api/studies/{id}/cancel',
      ]),
    )
    // tus is not a REST resource; it stays out of the document.
    expect(Object.keys(doc.paths).some((p) => p.startsWith('/files'))).toBe(false)
    const detail = doc.paths['/api/datasets/{id}']?.get as { responses: Record<string, unknown> }
    expect(Object.keys(detail.responses)).toEqual(expect.arrayContaining(['200', '404']))
  })

  it('answers unknown routes with a coded 404', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/nope' })
    expect(res.statusCode).toBe(404)
    const body = ErrorBody.parse(res.json())
    expect(body.code).toBe('NOT_FOUND')
    expect(body.reqId).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('answers an unknown dataset with DATASET_NOT_FOUND', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/datasets/missing' })
    expect(res.statusCode).toBe(404)
    expect(ErrorBody.parse(res.json()).code).toBe('DATASET_NOT_FOUND')
  })

  it('answers a NUL anywhere in params, query or body with 400 NUL_IN_INPUT, before any query', async () => {
    const attacks = [
      { method: 'GET', url: '/api/runs/%00' },
      { method: 'GET', url: '/api/datasets/a%00b' },
      { method: 'GET', url: '/api/runs/r/events?after=0&x=%00' },
      {
        method: 'POST',
        url: '/api/runs',
        payload: { datasetId: '\u0000', k: 2, maxIterations: 1, workers: 1 },
      },
      {
        method: 'POST',
        url: '/api/evaluations',
        payload: { imageSetId: 'i', k: [2], vocabularyIds: ['v\u0000'] },
      },
      { method: 'POST', url: '/api/studies', payload: { kind: 'markov', name: { '\u0000': 1 } } },
    ] as const
    for (const attack of attacks) {
      const res = await app.inject({ ...attack, headers: authHeaders })
      const body = ErrorBody.parse(res.json())
      expect([res.statusCode, body.code], attack.url).toEqual([400, 'NUL_IN_INPUT'])
      // It says where, and nothing of the database.
      expect(body.message).toMatch(/^(params|query|body)/)
      expect(body.message).not.toMatch(/select|from "/i)
    }
    // The same routes still serve clean input.
    expect((await app.inject({ method: 'GET', url: '/api/runs/nope' })).statusCode).toBe(404)
  })

  it('answers a bad query with VALIDATION_FAILED naming the field', async () => {
    const res = await app.inject({
      method: 'POST',
      headers: authHeaders,
      url: '/api/datasets?name=x&format=jpeg',
      payload: 'abc',
    })
    expect(res.statusCode).toBe(400)
    const body = ErrorBody.parse(res.json())
    expect(body.code).toBe('VALIDATION_FAILED')
    expect(body.message).toContain('querystring.format')
  })

  it('answers a preview row count out of range with VALIDATION_FAILED', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/datasets/x/preview?rows=0' })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toMatchObject({ code: 'VALIDATION_FAILED' })
  })

  // Last in this block: it uses up the write budget of 127.0.0.1 for the minute.
  it('rate limits writes with RATE_LIMITED, but not reads', async () => {
    let limited: { statusCode: number; body: string } | undefined
    for (let i = 0; i <= WRITE_RATE_LIMIT_PER_MINUTE && limited === undefined; i++) {
      const res = await app.inject({ method: 'DELETE', headers: authHeaders, url: '/api/datasets/missing' })
      if (res.statusCode === 429) limited = res
      else expect(res.statusCode).toBe(404)
    }
    expect(limited).toBeDefined()
    expect(ErrorBody.parse(JSON.parse(limited!.body)).code).toBe('RATE_LIMITED')
    const read = await app.inject({ method: 'GET', url: '/api/health' })
    expect(read.statusCode).toBe(200)
  })
})
