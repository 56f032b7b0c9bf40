import { describe, expect, expectTypeOf, it } from 'vitest'
import { jobEventData } from './job-events.ts'
import { jobKinds } from './jobs.ts'
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
    const event = { kind: 'run', id: 'r', seq: 1, type: 'log', data: {} }
    expect(serverEventSchemas['job:event'].safeParse(event).success).toBe(true)
    expect(serverEventSchemas['job:event'].safeParse({ ...event, seq: 0 }).success).toBe(false)
    expect(serverEventSchemas['job:event'].safeParse({ ...event, kind: 'plan' }).success).toBe(false)
    expect(clientEventSchemas['job:join'].safeParse({ kind: 'study', id: 's', lastSeq: 0 }).success).toBe(
      true,
    )
    expect(clientEventSchemas['job:join'].safeParse({ kind: 'run', id: '', lastSeq: -1 }).success).toBe(false)
    // A lastSeq past the seq column's range is refused here, before any query.
    expect(
      clientEventSchemas['job:join'].safeParse({ kind: 'run', id: 'r', lastSeq: 2 ** 53 - 1 }).success,
    ).toBe(false)
    expect(clientEventSchemas['job:leave'].safeParse({ kind: 'evaluation', id: 'e' }).success).toBe(true)
    expect(
      serverEventSchemas['dataset:event'].safeParse({ datasetId: 'd', type: 'gone', data: {} }).success,
    ).toBe(false)
  })
})

describe('job event data', () => {
  it('gives every kind a state and a progress schema, and parses a state with the kind record', () => {
    for (const kind of jobKinds) {
      expect(Object.keys(jobEventData[kind])).toEqual(expect.arrayContaining(['state', 'progress']))
    }
    expect(jobEventData.study.progress.safeParse({ fraction: 0.5, message: 'half' }).success).toBe(true)
    expect(jobEventData.evaluation.progress.safeParse({ fraction: 2, message: 'x' }).success).toBe(false)
  })
})
