import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../app.ts'
import { makeTempHome, testConfig } from '../test-support/test-server.ts'

// The lock is on the home, whatever the database: PGlite is enough here.
describe('data home lock', () => {
  let home: Awaited<ReturnType<typeof makeTempHome>>
  beforeAll(async () => {
    home = await makeTempHome()
  })
  afterAll(() => home.remove())

  it('refuses a second server on the same home with HOME_LOCKED, and frees the home on close', async () => {
    const first = await buildApp(testConfig(home.home, undefined))
    try {
      await expect(buildApp(testConfig(home.home, undefined))).rejects.toMatchObject({ code: 'HOME_LOCKED' })
      // The failed attempt must not have broken the first server.
      expect((await first.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200)
    } finally {
      await first.close()
    }
    const second = await buildApp(testConfig(home.home, undefined))
    expect((await second.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200)
    await second.close()
  })
})
