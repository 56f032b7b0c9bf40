import { spawnSync } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { join } from 'node:path'
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

  it('takes over at once from a holder whose pid is gone (kill -9), never from a live one', async () => {
    // A fresh lock (mtime now, so not stale for 10 s) left by a process that has exited.
    const dead = spawnSync(process.execPath, ['-e', '']).pid
    const leave = async (pid: number) => {
      await mkdir(join(home.home, 'server.lock'), { recursive: true })
      await writeFile(join(home.home, 'server.lock.owner'), JSON.stringify({ pid, host: hostname() }))
    }
    await leave(process.pid)
    await expect(buildApp(testConfig(home.home, undefined))).rejects.toMatchObject({ code: 'HOME_LOCKED' })
    await leave(dead)
    const started = Date.now()
    const app = await buildApp(testConfig(home.home, undefined))
    try {
      // Well inside the 10 s a stale lock would take.
      expect(Date.now() - started).toBeLessThan(9_000)
      expect((await app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200)
    } finally {
      await app.close()
    }
  })
})
