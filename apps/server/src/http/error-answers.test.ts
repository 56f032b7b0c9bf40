import { randomUUID } from 'node:crypto'
import { request } from 'node:http'
import { homedir } from 'node:os'
import { type JobJoin, JobJoinAck, socketEvents } from '@codebook/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../start-server.ts'
import { connected, eventClient } from '../test-support/event-client.ts'
import { authHeaders, makeTempHome, testConfig } from '../test-support/test-server.ts'

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'

/** Ids a client may put in a path, URL-encoded: too long, other characters, path spellings. */
const BAD_IDS = [
  'x'.repeat(65),
  'x'.repeat(5000),
  '%2e%2e', // ..
  '%2e%2e%2f%2e%2e%2fetc%2fpasswd', // ../../etc/passwd
  '..%5c..%5cwindows', // ..\..\windows
  '.%2F.',
  'a%20b',
  "a'%3B--",
  '%C3%A9t%C3%A9', // été
  '%E2%80%AE', // right-to-left override
  'a%0Ab',
]

/** What no error answer may hold: query text from the driver, or a server path. */
function leaks(text: string, home: string): string[] {
  const found: string[] = []
  for (const sql of [/select /i, /insert /i, /update "/i, /delete from/i, /from "/i, /failed query/i])
    if (sql.test(text)) found.push(String(sql))
  for (const path of ['/tmp/', '/root', homedir(), home]) if (text.includes(path)) found.push(path)
  return found
}

describe('every error answer goes through the one coded path', () => {
  let home: Awaited<ReturnType<typeof makeTempHome>>
  let server: RunningServer
  /** Every error answered below: where it came from and its body. */
  const answers: Array<{ where: string; status: number; body: string }> = []
  let routes: Array<{ method: Method; path: string }> = []

  beforeAll(async () => {
    home = await makeTempHome()
    server = await startServer(testConfig(home.home, undefined))
    const doc = server.app.swagger() as { paths: Record<string, Record<string, unknown>> }
    routes = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => ({ method: m.toUpperCase() as Method, path })),
    )
  })
  afterAll(async () => {
    await server.close()
    await home.remove()
  })

  /** Sends `url` as written (fetch would resolve `%2e%2e` segments before sending). */
  async function send(method: Method, url: string, body?: string) {
    const headers: Record<string, string> = method === 'GET' ? {} : { ...authHeaders }
    if (body !== undefined) headers['content-type'] = 'application/json'
    const { port } = new URL(server.url)
    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, method, path: url, headers }, (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => {
          text += chunk
        })
        res.on('end', () => resolve({ status: res.statusCode!, text }))
      })
      req.on('error', reject)
      req.end(body)
    })
    if (status >= 400) answers.push({ where: `${method} ${url}`, status, body: text })
    return { status, text }
  }

  /** A path of `route` with `id` in its id parameter and valid values elsewhere. */
  const fill = (path: string, id: string) =>
    path
      .replace(/\{(id|uploadId)\}/, id)
      .replace('{version}', '1')
      .replace('{file}', '0.png')

  it('answers a malformed id in every :id route with 400 INVALID_ID, before any query', async () => {
    const idRoutes = routes.filter((r) => /\{(id|uploadId)\}/.test(r.path))
    expect(idRoutes.length).toBeGreaterThanOrEqual(25)
    for (const route of idRoutes) {
      for (const id of BAD_IDS) {
        const { status, text } = await send(route.method, fill(route.path, id))
        const body = JSON.parse(text) as { code: string; message: string }
        expect([status, body.code], `${route.method} ${fill(route.path, id)}`).toEqual([400, 'INVALID_ID'])
        expect(body.message).toMatch(/^params(\.(id|uploadId))?: (not an id|longer than 100)/)
      }
      // A well-formed id nobody made is not found: the format alone is checked, not the existence.
      const unknown = await send(route.method, fill(route.path, randomUUID()))
      expect([400, 404, 409], `${route.method} ${route.path}`).toContain(unknown.status)
      expect(unknown.text).not.toContain('INVALID_ID')
    }
  }, 120_000)

  it('answers bad bodies, queries and NULs with codes', async () => {
    const writes = routes.filter((r) => r.method !== 'GET' && !r.path.includes('{'))
    for (const { method, path } of writes) {
      await send(method, path, '{}')
      await send(method, path, '{"datasetId": 12, "name": [1]}')
      await send(method, path, '{not json')
      await send(method, path, JSON.stringify({ datasetId: '\u0000', name: 'a\u0000' }))
    }
    for (const { method, path } of routes.filter((r) => r.path.includes('{id}')))
      await send(method, fill(path, '%00'))
    // A percent-encoding that decodes to nothing: the router's error, in the coded shape too.
    const badUrl = await send('GET', '/api/runs/%E0%A4%A')
    expect(JSON.parse(badUrl.text)).toMatchObject({ code: 'FST_ERR_BAD_URL', reqId: expect.any(String) })
    for (const url of ['/api/runs?limit=0', '/api/datasets?before=%27%3B', '/api/runs/x/events?after=-1'])
      await send('GET', url)
    // Ids inside bodies are held to the same format.
    const run = await send(
      'POST',
      '/api/runs',
      JSON.stringify({ datasetId: '../x', k: 2, maxIterations: 1, workers: 1 }),
    )
    expect(JSON.parse(run.text)).toMatchObject({ code: 'INVALID_ID' })
  }, 60_000)

  it('answers bad job:join messages on socket.io with codes', async () => {
    const client = await connected(eventClient(server.url))
    try {
      const joins = [
        { kind: 'run', id: '\u0000', lastSeq: 0 },
        { kind: 'run', id: 'x'.repeat(65), lastSeq: 0 },
        { kind: 'run', id: '../../etc', lastSeq: 0 },
        { kind: 'run', id: randomUUID(), lastSeq: 2 ** 53 - 1 },
        { kind: 'nope', id: 'a', lastSeq: 0 },
        { kind: 'run', id: randomUUID(), lastSeq: 0 },
        { kind: 'evaluation', id: 'missing', lastSeq: 0 },
      ]
      for (const join of joins) {
        const ack = JobJoinAck.parse(await client.emitWithAck(socketEvents.jobJoin, join as JobJoin))
        if (!ack.ok)
          answers.push({ where: `job:join ${JSON.stringify(join)}`, status: 0, body: JSON.stringify(ack) })
      }
    } finally {
      client.close()
    }
  })

  it('holds no SQL and no server path in any of them', () => {
    expect(answers.length).toBeGreaterThan(300)
    const leaked = answers.flatMap((a) => {
      const found = leaks(a.body, home.home)
      return found.length > 0 ? [`${a.where} → ${a.status} ${a.body} (${found.join(', ')})`] : []
    })
    expect(leaked).toEqual([])
    // Every HTTP error is the coded shape; 500s would say only "see the server log".
    for (const a of answers.filter((x) => x.status > 0)) {
      expect(JSON.parse(a.body), a.where).toMatchObject({
        code: expect.any(String),
        message: expect.any(String),
      })
      expect(a.status, `${a.where}: ${a.body}`).toBeLessThan(500)
    }
  })
})
