import { describe, expect, expectTypeOf, it } from 'vitest'
import {
  type ClientToServerEvents,
  clientEventSchemas,
  type ServerToClientEvents,
  serverEventSchemas,
  socketEvents,
} from './socket-events.ts'

/** Names socket.io itself uses on a socket; an application event by one of them would never arrive. */
const reservedNames = [
  'connect',
  'connect_error',
  'disconnect',
  'disconnecting',
  'newListener',
  'removeListener',
]

describe('socket events', () => {
  const names: string[] = Object.values(socketEvents)

  it('gives every event its own name, none of them socket.io’s', () => {
    expect(new Set(names).size).toBe(names.length)
    for (const name of names) expect(reservedNames, name).not.toContain(name)
  })

  it('has a payload schema for every event, each in one direction only', () => {
    const server = Object.keys(serverEventSchemas)
    const client = Object.keys(clientEventSchemas)
    expect([...server, ...client].sort()).toEqual([...names].sort())
    expect(server.filter((name) => client.includes(name))).toEqual([])
  })

  it('types the two directions by the same names (checked by tsc)', () => {
    type Named = (typeof socketEvents)[keyof typeof socketEvents]
    expectTypeOf<keyof ServerToClientEvents | keyof ClientToServerEvents>().toEqualTypeOf<Named>()
    expectTypeOf<keyof typeof serverEventSchemas>().toEqualTypeOf<keyof ServerToClientEvents>()
    expectTypeOf<keyof typeof clientEventSchemas>().toEqualTypeOf<keyof ClientToServerEvents>()
  })

  it('parses what each side sends and refuses a malformed payload', () => {
    expect(
      serverEventSchemas['run:event'].safeParse({ runId: 'r', seq: 1, type: 'log', data: {} }).success,
    ).toBe(true)
    expect(
      serverEventSchemas['run:event'].safeParse({ runId: 'r', seq: 0, type: 'log', data: {} }).success,
    ).toBe(false)
    expect(clientEventSchemas['run:join'].safeParse({ runId: 'r', lastSeq: 0 }).success).toBe(true)
    expect(clientEventSchemas['run:join'].safeParse({ runId: '', lastSeq: -1 }).success).toBe(false)
    expect(clientEventSchemas['run:leave'].safeParse({ runId: 'r' }).success).toBe(true)
    expect(
      serverEventSchemas['dataset:event'].safeParse({ datasetId: 'd', type: 'gone', data: {} }).success,
    ).toBe(false)
  })
})
