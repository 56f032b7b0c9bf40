import { Dataset, JobEventList, Run } from '@codebook/shared'
import { describe, expect, it } from 'vitest'
import { buildApp } from '../app.ts'
import { makeVectors, npyFloat32 } from '../test-support/payloads.ts'
import { authHeaders, makeTempHome, testConfig } from '../test-support/test-server.ts'

describe('a run whose dataset was deleted while it waited', () => {
  it('fails with DATASET_DELETED and names no server path, in the record and in its log', async () => {
    const h = await makeTempHome()
    const app = await buildApp(testConfig(h.home, undefined))
    try {
      const upload = async (name: string, n: number) => {
        const res = await app.inject({
          method: 'POST',
          url: `/api/datasets?name=${name}&format=npy&wait=true`,
          headers: { ...authHeaders, 'content-type': 'application/octet-stream' },
          payload: npyFloat32(makeVectors(n, 16, 3)),
        })
        expect(res.statusCode).toBe(201)
        return Dataset.parse(res.json()).id
      }
      const busyId = await upload('busy', 20_000)
      const goneId = await upload('gone', 200)
      const start = async (datasetId: string, maxIterations: number) => {
        const res = await app.inject({
          method: 'POST',
          url: '/api/runs',
          headers: authHeaders,
          payload: { datasetId, k: 8, maxIterations, workers: 1, kernel: 'reference', tol: 0 },
        })
        expect(res.statusCode).toBe(201)
        return Run.parse(res.json()).id
      }
      // One run at a time: the first holds the slot, so the second is still queued when its dataset goes.
      const busy = await start(busyId, 10_000)
      const waiting = await start(goneId, 3)
      expect(
        (await app.inject({ method: 'DELETE', url: `/api/datasets/${goneId}`, headers: authHeaders }))
          .statusCode,
      ).toBe(204)
      await app.inject({ method: 'POST', url: `/api/runs/${busy}/cancel`, headers: authHeaders })

      const failed = await app.runs.settled(waiting)
      expect(failed.status).toBe('failed')
      expect(failed.error?.code).toBe('DATASET_DELETED')
      const answered = await app.inject({ method: 'GET', url: `/api/runs/${waiting}` })
      const events = JobEventList.parse(
        (await app.inject({ method: 'GET', url: `/api/runs/${waiting}/events` })).json(),
      )
      for (const text of [answered.body, JSON.stringify(events)]) {
        expect(text).not.toContain(h.home)
        expect(text).toContain('DATASET_DELETED')
      }
    } finally {
      await app.close()
      await h.remove()
    }
  })
})
