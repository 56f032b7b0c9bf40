import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from './app.ts'
import { authHeaders, makeTempHome, testConfig } from './test-support/test-server.ts'

describe('web UI serving', () => {
  let app: FastifyInstance
  let home: Awaited<ReturnType<typeof makeTempHome>>
  beforeAll(async () => {
    home = await makeTempHome()
    const web = join(home.home, 'web')
    await mkdir(join(web, 'assets'), { recursive: true })
    await writeFile(join(web, 'index.html'), '<!doctype html><title>codebook</title>')
    await writeFile(join(web, 'assets', 'app.js'), 'console.log(1)')
    app = await buildApp(testConfig(join(home.home, 'home'), undefined, { webDist: web }))
  })
  afterAll(async () => {
    await app.close()
    await home.remove()
  })

  it('serves files, falls back to index.html for client routes, and never for API paths', async () => {
    const asset = await app.inject({ method: 'GET', url: '/assets/app.js' })
    expect(asset.statusCode).toBe(200)
    expect(asset.body).toBe('console.log(1)')
    const route = await app.inject({ method: 'GET', url: '/runs/42' })
    expect(route.statusCode).toBe(200)
    expect(route.body).toContain('<title>codebook</title>')
    const api = await app.inject({ method: 'GET', url: '/api/nothing' })
    expect(api.statusCode).toBe(404)
    expect(api.json()).toMatchObject({ code: 'NOT_FOUND' })
    const post = await app.inject({ method: 'POST', headers: authHeaders, url: '/runs/42' })
    expect(post.statusCode).toBe(404)
  })
})
