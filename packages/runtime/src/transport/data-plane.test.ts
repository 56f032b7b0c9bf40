import { createHash, randomBytes } from 'node:crypto'
import net from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { DataPlane } from './data-plane.ts'

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex')

describe('DataPlane handshake', () => {
  const cleanups: (() => Promise<void>)[] = []
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c()
  })

  async function plane(
    rank: number,
    session: number,
    extra: Partial<ConstructorParameters<typeof DataPlane>[0]> = {},
  ) {
    const p = new DataPlane({
      rank,
      session,
      connectAttempts: 2,
      connectBackoffMs: 1,
      chunkBytes: 4096,
      ...extra,
    })
    const addr = await p.listen('127.0.0.1')
    cleanups.push(() => p.close())
    return { p, addr }
  }

  it('delivers a multi-chunk message between nodes of the same session', async () => {
    const a = await plane(0, 42)
    const b = await plane(1, 42)
    a.p.setPeers([a.addr, b.addr])
    b.p.setPeers([a.addr, b.addr])
    const data = randomBytes(3 * 4096 + 17)
    const received = b.p.recv(0, 5, 0)
    await a.p.sendRange(1, 5, 0, data)
    expect(sha(await received)).toBe(sha(data))
  })

  it('replaces a connection whose close it has not seen yet; a refused replacement is the caller’s error only', async () => {
    const a = await plane(0, 42)
    const b = await plane(1, 42)
    a.p.setPeers([a.addr, b.addr])
    const old = await a.p.connection(1)
    await b.p.closeListener()
    // Destroyed but its 'close' not yet emitted: the state a send finds when the peer has just gone.
    old.destroy()
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    try {
      await expect(a.p.connection(1)).rejects.toMatchObject({ code: 'PEER_UNREACHABLE' })
      // The old socket's 'close' (next tick) found the refused attempt as the current one.
      await new Promise((r) => setTimeout(r, 50))
      expect(unhandled).toEqual([])
    } finally {
      process.off('unhandledRejection', onUnhandled)
    }
  })

  it('refuses a listener of another session: the old address now belongs to another job', async () => {
    const a = await plane(0, 42)
    const stranger = await plane(1, 43)
    a.p.setPeers([a.addr, stranger.addr])
    const delivered = stranger.p.recv(0, 5, 0, undefined, 300)
    await expect(a.p.sendRange(1, 5, 0, randomBytes(100))).rejects.toMatchObject({
      code: 'PEER_UNREACHABLE',
      message: expect.stringMatching(/rank 1 of session 43, not rank 1 of session 42/),
    })
    // The stranger filed nothing from the refused connection.
    await expect(delivered).rejects.toMatchObject({ code: 'RECV_TIMEOUT' })
  })

  it('refuses a listener that is another rank of the same session', async () => {
    const a = await plane(0, 42)
    const other = await plane(2, 42)
    a.p.setPeers([a.addr, other.addr])
    await expect(a.p.sendRange(1, 5, 0, randomBytes(10))).rejects.toMatchObject({ code: 'PEER_UNREACHABLE' })
  })

  it('refuses a listener that accepts but never answers the handshake', async () => {
    const sockets = new Set<net.Socket>()
    const silent = net.createServer((s) => sockets.add(s))
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()))
    cleanups.push(async () => {
      for (const s of sockets) s.destroy()
      await new Promise<void>((r) => silent.close(() => r()))
    })
    const port = (silent.address() as net.AddressInfo).port
    const a = await plane(0, 42, { handshakeTimeoutMs: 100 })
    a.p.setPeers([a.addr, { host: '127.0.0.1', port }])
    await expect(a.p.sendRange(1, 5, 0, randomBytes(10))).rejects.toMatchObject({
      code: 'PEER_UNREACHABLE',
      message: expect.stringMatching(/no answer to the handshake within 100 ms/),
    })
  })
})
