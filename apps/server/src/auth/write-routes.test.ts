import { request } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { io as connectSocket } from 'socket.io-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../app.ts'
import { authHeaders, makeTempHome, testConfig } from '../test-support/test-server.ts'

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/** One raw HTTP request over a real socket, on its own connection: the path is sent byte for byte. */
function send(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString(),
        }),
      )
    })
    req.on('error', reject)
    req.end(['POST', 'PUT', 'PATCH', 'DELETE'].includes(method) ? '{}' : undefined)
  })
}

const encodeAll = (segment: string) =>
  [...segment].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('')

/**
 * Spellings of one concrete path that a router may resolve to the same handler while a string
 * check on the URL would not recognise them: the attacks of issue 17, and a few more.
 */
function variants(path: string): string[] {
  const [first = '', ...rest] = path.slice(1).split('/')
  const tail = rest.length > 0 ? `/${rest.join('/')}` : ''
  return [
    path,
    `/%${first.charCodeAt(0).toString(16)}${first.slice(1)}${tail}`, // /%61pi/runs
    `/%${first.charCodeAt(0).toString(16).toUpperCase()}${first.slice(1)}${tail}`,
    `/${encodeAll(first)}${tail}`,
    `/${first}${rest.map((s) => `/${encodeAll(s)}`).join('')}`,
    `/${path}`, // //api/runs
    `/${first}/${tail}`, // /api//runs
    `/${first}/.${tail}`, // /api/./runs
    `/${first}/x/..${tail}`, // /api/x/../runs
    `/x/..${path}`,
    `/${first}%2f${tail.slice(1)}`,
    `/${first.toUpperCase()}${tail.toUpperCase()}`,
    `/${first[0]?.toUpperCase()}${first.slice(1)}${tail}`,
    `${path}/`,
    `${path}?x=1`,
    `${path};x`,
    `${path}%00`,
    `${path}#frag`,
  ]
}

/**
 * 401 from the token check, or Node's own 400 for a request line it cannot parse (Fastify's
 * clientError answer, without our `reqId`). A route's 400 (validation) would mean auth let it by.
 */
function refusedBeforeAnyRoute(res: Answer): boolean {
  if (res.status === 401) return JSON.parse(res.body).code === 'UNAUTHORIZED'
  return res.status === 400 && !res.body.includes('"reqId"')
}

/** A concrete path for a route pattern: parameters and wildcards become a plausible id. */
function concrete(pattern: string): string {
  return pattern.replace(/:[^/]+/g, '00000000-0000-4000-8000-000000000000').replace(/\*$/, 'abc')
}

describe('every write route needs the token, however its path is spelled', () => {
  let app: FastifyInstance
  let port: number
  let cleanup: () => Promise<void>

  beforeAll(async () => {
    const home = await makeTempHome()
    app = await buildApp(testConfig(home.home, undefined))
    await app.listen({ port: 0, host: '127.0.0.1' })
    port = (app.server.address() as AddressInfo).port
    cleanup = async () => {
      await app.close()
      await home.remove()
    }
  })
  afterAll(() => cleanup())

  it('knows the write routes (the list the attack below walks)', () => {
    // Independent of the plugin's own list: the routes issue 17 found open must be in it.
    for (const route of [
      'POST /api/runs',
      'DELETE /api/datasets/:id',
      'DELETE /api/vocabularies/:id',
      'PUT /api/image-sets',
      'POST /files',
      'PATCH /files/*',
      'POST /api/topologies',
      'POST /api/plans',
      'POST /api/studies',
      'POST /api/studies/:id/cancel',
      'DELETE /api/studies/:id',
    ]) {
      expect(app.writeRoutes).toContain(route)
    }
  })

  it('refuses every variant of every write route without a token, and writes nothing', async () => {
    const open: string[] = []
    let tried = 0
    for (const route of app.writeRoutes) {
      const [method = '', pattern = ''] = route.split(' ')
      for (const path of variants(concrete(pattern))) {
        for (const m of [method, 'POST', 'PUT', 'PATCH', 'DELETE']) {
          tried++
          const res = await send(port, m, path, {
            'content-type': 'application/json',
            'tus-resumable': '1.0.0',
            'upload-length': '10',
            'upload-metadata': `name ${Buffer.from('x').toString('base64')}`,
          })
          if (!refusedBeforeAnyRoute(res)) open.push(`${m} ${path} → ${res.status} ${res.body.slice(0, 80)}`)
        }
      }
    }
    expect(tried).toBeGreaterThan(500)
    expect(open).toEqual([])
    for (const list of [
      '/api/datasets',
      '/api/runs',
      '/api/topologies',
      '/api/image-sets',
      '/api/evaluations',
      '/api/studies',
      '/api/vocabularies',
    ]) {
      const res = await app.inject({ method: 'GET', url: list })
      const body = res.json() as Record<string, unknown[]>
      expect(Object.values(body)[0]).toEqual([])
    }
  })

  it('accepts the token on the percent-encoded spelling too (the router, not a prefix, decides)', async () => {
    const res = await send(port, 'POST', '/%61pi/topologies', {
      ...authHeaders,
      'content-type': 'application/json',
    })
    // Reached the route (body validation), not refused by auth.
    expect(res.status).toBe(400)
    expect(JSON.parse(res.body).code).toBe('VALIDATION_FAILED')
  })

  it('never names a server path when it refuses', async () => {
    const res = await send(port, 'POST', '/api/runs')
    expect(res.status).toBe(401)
    expect(res.body).not.toContain(app.home.home)
    expect(res.body).toContain('CODEBOOK_HOME/api-token')
  })

  it('refuses foreign origins on HTTP (reads too) and sends no wildcard CORS header', async () => {
    const evil = { origin: 'http://evil.example' }
    for (const [method, path] of [
      ['GET', '/api/runs'],
      ['POST', '/api/runs'],
      ['OPTIONS', '/files'],
      ['POST', '/files'],
      ['OPTIONS', '/api/runs'],
    ] as const) {
      const res = await send(port, method, path, { ...evil, ...authHeaders, 'tus-resumable': '1.0.0' })
      expect(res.status, `${method} ${path}`).toBe(403)
      expect(JSON.parse(res.body).code).toBe('ORIGIN_NOT_ALLOWED')
      expect(res.headers['access-control-allow-origin']).toBeUndefined()
    }
    const nullOrigin = await send(port, 'GET', '/api/runs', { origin: 'null' })
    expect(nullOrigin.status).toBe(403)
    // The server's own origin (the Host it was reached at) is fine, with no CORS header needed.
    const own = await send(port, 'GET', '/api/runs', { origin: `http://127.0.0.1:${port}` })
    expect(own.status).toBe(200)
    const tus = await send(port, 'OPTIONS', '/files', { origin: `http://127.0.0.1:${port}` })
    expect(tus.headers['access-control-allow-origin']).toBeUndefined()
  })

  it('refuses a rebound host name (DNS rebinding), reads and sockets too, and serves IP literals and localhost', async () => {
    // A page on rebind.example, its name re-pointed at 127.0.0.1, is same-origin with itself.
    const rebound = { host: `rebind.example:${port}`, origin: `http://rebind.example:${port}` }
    for (const path of ['/api/runs', '/api/datasets', '/', '/socket.io/?EIO=4&transport=polling']) {
      const res = await send(port, 'GET', path, rebound)
      expect(res.status, path).toBe(403)
      // socket.io answers its own handshake refusal ({"code":4,"message":"Forbidden"}).
      if (!path.startsWith('/socket.io/')) expect(res.body, path).toContain('HOST_NOT_ALLOWED')
    }
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`]) {
      const res = await send(port, 'GET', '/api/runs', { host })
      expect(res.status, host).toBe(200)
    }
    expect((await send(port, 'GET', '/api/runs', { host: `codebook.localhost:${port}` })).status).toBe(200)
  })

  it('refuses a socket.io connection from a foreign origin and accepts the own origin', async () => {
    const attempt = (origin: string, transport: 'websocket' | 'polling') =>
      new Promise<'connected' | 'refused'>((resolve) => {
        const socket = connectSocket(`http://127.0.0.1:${port}`, {
          transports: [transport],
          extraHeaders: { origin },
          reconnection: false,
          timeout: 5000,
        })
        socket.on('connect', () => {
          socket.close()
          resolve('connected')
        })
        socket.on('connect_error', () => {
          socket.close()
          resolve('refused')
        })
      })
    for (const transport of ['websocket', 'polling'] as const) {
      expect(await attempt('http://evil.example', transport)).toBe('refused')
      expect(await attempt(`http://127.0.0.1:${port}`, transport)).toBe('connected')
    }
  })
})

describe('configured hosts', () => {
  it('serves a name in CODEBOOK_ALLOWED_HOSTS (and its subdomains with a leading dot) and no other', async () => {
    const home = await makeTempHome()
    const app = await buildApp(
      testConfig(home.home, undefined, { allowedHosts: ['codebook.lab', '.cluster.internal'] }),
    )
    try {
      const status = async (host: string) =>
        (await app.inject({ method: 'GET', url: '/api/runs', headers: { host } })).statusCode
      expect(await status('codebook.lab:8080')).toBe(200)
      expect(await status('node7.cluster.internal')).toBe(200)
      expect(await status('cluster.internal')).toBe(200)
      expect(await status('evilcluster.internal')).toBe(403)
      expect(await status('codebook.lab.evil.example')).toBe(403)
    } finally {
      await app.close()
      await home.remove()
    }
  })
})

describe('configured origins', () => {
  it('answers CORS for an origin in CODEBOOK_ALLOWED_ORIGINS only, never with *', async () => {
    const home = await makeTempHome()
    const app = await buildApp(testConfig(home.home, undefined, { allowedOrigins: ['https://lab.example'] }))
    try {
      const ok = await app.inject({
        method: 'OPTIONS',
        url: '/api/runs',
        headers: { origin: 'https://lab.example', 'access-control-request-method': 'POST' },
      })
      expect(ok.headers['access-control-allow-origin']).toBe('https://lab.example')
      const tus = await app.inject({
        method: 'OPTIONS',
        url: '/files',
        headers: { origin: 'https://lab.example', 'access-control-request-method': 'POST' },
      })
      expect(tus.headers['access-control-allow-origin']).toBe('https://lab.example')
      const other = await app.inject({
        method: 'GET',
        url: '/api/runs',
        headers: { origin: 'https://other.example' },
      })
      expect(other.statusCode).toBe(403)
    } finally {
      await app.close()
      await home.remove()
    }
  })
})
