import { ErrorBody, ServerLimits } from '@codebook/shared'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../app.ts'
import { authHeaders, makeTempHome, TEST_API_TOKEN, testConfig } from '../test-support/test-server.ts'

describe('limits and token check', () => {
  let app: FastifyInstance
  let removeHome: () => Promise<void>

  beforeAll(async () => {
    const home = await makeTempHome()
    app = await buildApp(testConfig(home.home, undefined, { maxWorkersPerRun: 6, maxQueuedRuns: 9 }))
    removeHome = home.remove
  })
  afterAll(async () => {
    await app.close()
    await removeHome()
  })

  it('GET /api/limits reports the configured run limits and the runtime kernels, without a token', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/limits' })
    expect(res.statusCode).toBe(200)
    const limits = ServerLimits.parse(res.json())
    expect(limits).toMatchObject({ maxWorkersPerRun: 6, maxQueuedRuns: 9, maxUploadBytes: 64 * 1024 ** 3 })
    expect(limits.kernels).toEqual(expect.arrayContaining(['onnx', 'reference']))
  })

  it('POST /api/token/check: 204 with the token, UNAUTHORIZED without, INVALID_TOKEN with a wrong one', async () => {
    const ok = await app.inject({ method: 'POST', url: '/api/token/check', headers: authHeaders })
    expect(ok.statusCode).toBe(204)
    const none = await app.inject({ method: 'POST', url: '/api/token/check' })
    expect(none.statusCode).toBe(401)
    expect(ErrorBody.parse(none.json()).code).toBe('UNAUTHORIZED')
    const wrong = await app.inject({
      method: 'POST',
      url: '/api/token/check',
      headers: { authorization: `Bearer ${TEST_API_TOKEN}-not` },
    })
    expect(wrong.statusCode).toBe(401)
    expect(ErrorBody.parse(wrong.json()).code).toBe('INVALID_TOKEN')
  })

  it('refuses a run on a kernel the runtime does not know, naming the field and the known kernels', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/runs',
      headers: authHeaders,
      payload: { datasetId: 'any', k: 2, maxIterations: 1, workers: 1, kernel: 'blas' },
    })
    expect(res.statusCode).toBe(400)
    const body = ErrorBody.parse(res.json())
    expect(body.code).toBe('KERNEL_UNKNOWN')
    expect(body.message).toMatch(/^kernel: .*'blas'.*onnx/)
  })
})
