import { randomUUID } from 'node:crypto'
import {
  createServer,
  type Server as TcpServer,
  type Socket as TcpSocket,
  connect as tcpConnect,
} from 'node:net'
import {
  type ClientToServerEvents,
  CreateRun,
  type JobJoin,
  JobJoinAck,
  type JobLeave,
  type ServerToClientEvents,
  socketEvents,
} from '@codebook/shared'
import { Server } from 'socket.io'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RealtimeServer } from '../realtime/realtime-plugin.ts'
import { createRunRepo, type RunRepo } from '../runs/run-repo.ts'
import { type RunningServer, startServer } from '../start-server.ts'
import { connected, type EventClient, eventClient } from '../test-support/event-client.ts'
import { makeTempHome, testConfig, testDrivers } from '../test-support/test-server.ts'
import { createJobFeed, type JobFeed } from './job-feed.ts'
import { attachJobSocket, type JobEventPublisher } from './job-socket.ts'

/**
 * A TCP relay between a client and the server whose server-to-client direction can be held: a
 * client that stops reading, as a slow browser on a slow link looks to the server.
 */
async function relay(port: number): Promise<{ port: number; hold(): void; release(): void; close(): void }> {
  const upstreams: TcpSocket[] = []
  const links: Array<{ up: TcpSocket; down: TcpSocket }> = []
  const server: TcpServer = createServer((down) => {
    const up = tcpConnect(port, '127.0.0.1')
    upstreams.push(up)
    links.push({ up, down })
    down.pipe(up)
    up.pipe(down)
    up.on('error', () => down.destroy())
    down.on('error', () => up.destroy())
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    port: (server.address() as { port: number }).port,
    hold() {
      for (const { up, down } of links) {
        up.unpipe(down)
        up.pause()
      }
    },
    release() {
      for (const { up, down } of links) up.pipe(down)
    },
    close() {
      for (const s of upstreams) s.destroy()
      server.close()
    },
  }
}

/** A socket.io client that records the seqs of every `job:event` it gets. */
async function watch(url: string, path: string): Promise<{ socket: EventClient; seqs: number[] }> {
  const socket = eventClient(url, { path, reconnection: false })
  const seqs: number[] = []
  socket.on(socketEvents.jobEvent, (e) => seqs.push(e.seq))
  await connected(socket)
  return { socket, seqs }
}

async function until(check: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

describe.each(testDrivers())('job events to a slow socket on $name', (driver) => {
  const PATH = '/test-job-socket'
  let server: RunningServer
  let io: RealtimeServer
  let publisher: JobEventPublisher
  let repo: RunRepo
  /** The feed under test, publishing to the socket under test (the app's own feed publishes to the app's). */
  let feed: JobFeed
  /** `message` packets the server created per connected socket (engine.io's public `packetCreate`). */
  const created = new Map<string, number>()
  /** Backlog reads the module made. */
  let reads = 0
  let cleanup: () => Promise<void>

  beforeAll(async () => {
    const h = await makeTempHome()
    const db = await driver.create()
    server = await startServer(testConfig(h.home, db.databaseUrl))
    repo = createRunRepo(server.app.db)
    // The module under test on its own socket.io path, small limits so a short log exercises them:
    // 16 queued packets per socket, 32 recent events in memory, pages of 20 from the database.
    io = new Server<ClientToServerEvents, ServerToClientEvents>(server.app.server, {
      path: PATH,
      serveClient: false,
    })
    io.on('connection', (s) => {
      created.set(s.id, 0)
      s.conn.on('packetCreate', (p: { type: string }) => {
        if (p.type === 'message') created.set(s.id, (created.get(s.id) ?? 0) + 1)
      })
    })
    publisher = attachJobSocket(
      io,
      (kind, id, after, limit) => {
        reads++
        return (kind === 'run' ? server.app.runs : server.app.studies).events(id, after, limit)
      },
      server.app.log,
      {
        maxQueuedPackets: 16,
        recentEvents: 32,
        backlogPage: 20,
      },
    )
    feed = createJobFeed(
      server.app.db,
      (kind, id, event) => publisher.publish(kind, id, event),
      server.app.log,
    )
    cleanup = async () => {
      await new Promise<void>((r) => io.close(() => r()))
      await server.close()
      await db.drop()
      await h.remove()
    }
  })
  afterAll(() => cleanup())

  async function insertRun(): Promise<string> {
    const id = randomUUID()
    // The schema fills every other parameter with its default.
    await repo.insert(id, CreateRun.parse({ datasetId: 'synthetic', k: 8, maxIterations: 10, workers: 1 }))
    return id
  }

  it('holds a bounded queue for clients that stop reading, then catches them up in order, none twice, reading each page once', async () => {
    const runId = await insertRun()
    const proxy = await relay((server.app.server.address() as { port: number }).port)
    const url = `http://127.0.0.1:${proxy.port}`
    const clients = [await watch(url, PATH), await watch(url, PATH)]
    try {
      for (const client of clients)
        expect(
          await client.socket.emitWithAck(socketEvents.jobJoin, { kind: 'run', id: runId, lastSeq: 0 }),
        ).toEqual({
          ok: true,
          lastSeq: 0,
        })
      expect(publisher.watchers('run', runId)).toBe(2)
      proxy.hold()
      reads = 0
      // 400 events of 64 kB (25.6 MB): far more than loopback's socket buffers (≤ 4 MiB sent
      // unread) can absorb, so what the server queued shows in the packets it created.
      const N = 400
      const message = 'x'.repeat(64 * 1024)
      for (let i = 0; i < N; i++) await feed.record('run', runId, 'log', { level: 'info', message })
      await new Promise((r) => setTimeout(r, 200))
      for (const client of clients) {
        // Kernel buffers (~4 MiB ≈ 64 events) + 16 queued + one transport batch; unbounded would be 400.
        expect(created.get(client.socket.id as string) ?? 0).toBeLessThan(N / 2)
      }
      proxy.release()
      await until(() => clients.every((c) => c.seqs.length >= N), `${N} events to both`)
      await new Promise((r) => setTimeout(r, 200))
      // Every event exactly once, in order: the 32 in memory could not cover the gap, so most came from the database.
      for (const client of clients) expect(client.seqs).toEqual(Array.from({ length: N }, (_, i) => i + 1))
      // Both fell behind together and shared the pages: one client's worth of reads (≤ 20 pages of 20,
      // plus a short read at the end), where reading per socket would take about twice that.
      expect(reads).toBeLessThanOrEqual(N / 20 + 2)
    } finally {
      for (const client of clients) client.socket.close()
      proxy.close()
    }
  })

  it('streams to sockets joining at any point while events are published, each seq once, in order', async () => {
    const runId = await insertRun()
    const N = 300
    const url = server.url
    const early = await watch(url, PATH)
    const late = await Promise.all([watch(url, PATH), watch(url, PATH)])
    try {
      expect(
        await early.socket.emitWithAck(socketEvents.jobJoin, { kind: 'run', id: runId, lastSeq: 0 }),
      ).toMatchObject({
        ok: true,
      })
      const joins: Array<Promise<unknown>> = []
      for (let i = 1; i <= N; i++) {
        await feed.record('run', runId, 'log', { level: 'info', message: `event ${i}` })
        // One joins from the start mid-stream (backlog pages, then memory), one from seq 250 near the end.
        if (i === 100)
          joins.push(late[0].socket.emitWithAck(socketEvents.jobJoin, { kind: 'run', id: runId, lastSeq: 0 }))
        if (i === 280)
          joins.push(
            late[1].socket.emitWithAck(socketEvents.jobJoin, { kind: 'run', id: runId, lastSeq: 250 }),
          )
      }
      await Promise.all(joins)
      await until(
        () => [early, ...late].every((c) => c.seqs.at(-1) === N),
        'every socket to reach the last seq',
      )
      const from = (a: number) => Array.from({ length: N - a }, (_, i) => a + i + 1)
      expect(early.seqs).toEqual(from(0))
      expect(late[0].seqs).toEqual(from(0))
      expect(late[1].seqs).toEqual(from(250))
      // A socket that leaves stops counting as a watcher and gets nothing more.
      late[1].socket.emit(socketEvents.jobLeave, { kind: 'run', id: runId })
      await until(() => publisher.watchers('run', runId) === 2, 'the leave')
      await feed.record('run', runId, 'log', { level: 'info', message: 'after leave' })
      await until(() => early.seqs.at(-1) === N + 1, 'the event after the leave')
      expect(late[1].seqs.at(-1)).toBe(N)
    } finally {
      for (const c of [early, ...late]) c.socket.close()
    }
  })

  it('keeps each kind’s feed apart: one id under two kinds has two seq lines, each to its own joiners', async () => {
    const id = await insertRun()
    const client = await watch(server.url, PATH)
    try {
      expect(await client.socket.emitWithAck(socketEvents.jobJoin, { kind: 'run', id, lastSeq: 0 })).toEqual({
        ok: true,
        lastSeq: 0,
      })
      await feed.record('run', id, 'log', { level: 'info', message: 'one' })
      await feed.record('study', id, 'progress', { fraction: 0.5, message: 'half' })
      await feed.record('run', id, 'log', { level: 'info', message: 'two' })
      await until(() => client.seqs.length >= 2, 'the two run events')
      await new Promise((r) => setTimeout(r, 100))
      expect(client.seqs).toEqual([1, 2])
      expect((await feed.eventsAfter('run', id, 0)).map((e) => e.data)).toEqual([
        { level: 'info', message: 'one' },
        { level: 'info', message: 'two' },
      ])
      expect(await feed.eventsAfter('study', id, 0)).toEqual([
        { seq: 1, type: 'progress', data: { fraction: 0.5, message: 'half' } },
      ])
    } finally {
      client.socket.close()
    }
  })

  it('parses what clients send: a malformed join is BAD_JOIN, a malformed leave is ignored', async () => {
    const runId = await insertRun()
    const client = await watch(server.url, PATH)
    try {
      // The types forbid these payloads; a client not written against them can still send them.
      for (const badJoin of [
        { runId, lastSeq: 0 },
        { kind: 'run', id: 7, lastSeq: -1 },
        { kind: 'plan', id: runId, lastSeq: 0 },
        // A NUL cannot reach a query (PostgreSQL refuses it, and its error would name the SQL).
        { kind: 'run', id: '\u0000', lastSeq: 0 },
        // Beyond the seq column's integer range, the same.
        { kind: 'run', id: runId, lastSeq: 2 ** 53 - 1 },
      ]) {
        const refused = JobJoinAck.parse(
          await client.socket.emitWithAck(socketEvents.jobJoin, badJoin as unknown as JobJoin),
        )
        expect(refused, JSON.stringify(badJoin)).toMatchObject({ ok: false, code: 'BAD_JOIN' })
        expect(JSON.stringify(refused)).not.toMatch(/select|from "/i)
      }
      expect(publisher.watchers('run', '7')).toBe(0)
      expect(
        await client.socket.emitWithAck(socketEvents.jobJoin, { kind: 'run', id: runId, lastSeq: 0 }),
      ).toEqual({
        ok: true,
        lastSeq: 0,
      })
      for (const badLeave of [null, { kind: 'run', id: 7 }, { runId }, 'x'])
        client.socket.emit(socketEvents.jobLeave, badLeave as unknown as JobLeave)
      // A round trip after the leaves: they have been handled, and the socket still watches the run.
      expect(
        await client.socket.emitWithAck(socketEvents.jobJoin, { kind: 'run', id: runId, lastSeq: 0 }),
      ).toMatchObject({
        ok: true,
      })
      expect(publisher.watchers('run', runId)).toBe(1)
    } finally {
      client.socket.close()
    }
  })

  it('answers a join to an unknown job with its kind’s NOT_FOUND and keeps no watcher', async () => {
    const client = await watch(server.url, PATH)
    try {
      for (const [kind, code] of [
        ['run', 'RUN_NOT_FOUND'],
        ['study', 'STUDY_NOT_FOUND'],
      ] as const) {
        expect(
          await client.socket.emitWithAck(socketEvents.jobJoin, { kind, id: 'nope', lastSeq: 0 }),
        ).toMatchObject({
          ok: false,
          code,
        })
        expect(publisher.watchers(kind, 'nope')).toBe(0)
      }
    } finally {
      client.socket.close()
    }
  })
})
