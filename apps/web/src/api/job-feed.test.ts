import type { JobJoin, JobJoinAck, JobLeave, JobSocketEvent } from '@codebook/shared'
import { describe, expect, it } from 'vitest'
import { JobFeed } from './job-feed.ts'
import type { SocketStatus } from './socket.ts'

/** A feed of evaluations over a recording sender: joins (with their pending acks), leaves, applied events. */
function harness() {
  const joins: { join: JobJoin; ack: (reply: JobJoinAck) => void }[] = []
  const leaves: JobLeave[] = []
  const applied: JobSocketEvent[] = []
  const statuses: SocketStatus[] = []
  const feed = new JobFeed(
    'evaluation',
    { join: (join, ack) => joins.push({ join, ack }), leave: (leave) => leaves.push(leave) },
    (event) => applied.push(event),
    (status) => statuses.push(status),
  )
  const joined = () => joins.map((j) => `${j.join.id}@${j.join.lastSeq}`)
  return { feed, joins, leaves, applied, statuses, joined }
}

/** Jobs to follow by id alone (no record held). */
const ids = (...list: string[]) => list.map((id) => ({ id }))

function event(id: string, seq: number, kind: JobSocketEvent['kind'] = 'evaluation'): JobSocketEvent {
  return { kind, id, seq, type: 'progress', data: { seq } }
}

describe('JobFeed', () => {
  it('joins followed ids only once connected, from seq 0', () => {
    const h = harness()
    h.feed.follow(ids('a', 'b'))
    expect(h.joins).toEqual([])
    expect(h.feed.status).toBe('connecting')
    h.feed.connected()
    expect(h.joins.map((j) => j.join)).toEqual([
      { kind: 'evaluation', id: 'a', lastSeq: 0 },
      { kind: 'evaluation', id: 'b', lastSeq: 0 },
    ])
    expect(h.statuses).toEqual(['connecting', 'live'])
  })

  it('applies events of joined ids in seq order, once, and ignores the rest', () => {
    const h = harness()
    h.feed.follow(ids('a'))
    h.feed.connected()
    for (const e of [event('a', 1), event('a', 2), event('a', 2), event('a', 1), event('a', 3)])
      h.feed.receive(e)
    h.feed.receive(event('other', 1)) // never joined
    h.feed.receive(event('a', 4, 'study')) // another kind with the same id
    h.feed.receive({ kind: 'evaluation', id: 'a', type: 'progress' }) // no seq
    h.feed.receive(null)
    expect(h.applied.map((e) => e.seq)).toEqual([1, 2, 3])
    expect(h.feed.lastSeq('a')).toBe(3)
    expect(h.feed.lastSeq('other')).toBe(0)
  })

  it('rejoins every followed id from its last applied seq after a reconnect', () => {
    const h = harness()
    h.feed.follow(ids('a', 'b'))
    h.feed.connected()
    h.feed.receive(event('a', 5))
    h.feed.receive(event('b', 2))
    h.feed.disconnected()
    expect(h.feed.status).toBe('offline')
    // Nothing joined while disconnected: a new id waits for the connection.
    h.feed.follow(ids('a', 'b', 'c'))
    expect(h.joined()).toEqual(['a@0', 'b@0'])
    h.feed.connected()
    expect(h.joined().slice(2)).toEqual(['a@5', 'b@2', 'c@0'])
    expect(h.statuses).toEqual(['connecting', 'live', 'offline', 'live'])
  })

  it('joins ids as they appear and leaves those that drop out', () => {
    const h = harness()
    h.feed.connected()
    h.feed.follow(ids('a'))
    h.feed.follow(ids('a', 'b'))
    h.feed.follow(ids('b'))
    expect(h.joined()).toEqual(['a@0', 'b@0'])
    expect(h.leaves).toEqual([{ kind: 'evaluation', id: 'a' }])
    // A left id's events still in flight are not applied: a rejoin replays them.
    h.feed.receive(event('a', 1))
    expect(h.applied).toEqual([])
    h.feed.follow(ids('a', 'b'))
    expect(h.joined().at(-1)).toBe('a@0')
  })

  it('does not leave an id that was never joined on this connection', () => {
    const h = harness()
    h.feed.follow(ids('a'))
    h.feed.follow([])
    h.feed.connected()
    h.feed.follow(ids('b'))
    h.feed.disconnected()
    h.feed.follow([])
    expect(h.leaves).toEqual([])
    expect(h.joined()).toEqual(['b@0'])
  })

  it('reports offline while a followed id is refused, and live again once it is dropped', () => {
    const h = harness()
    h.feed.follow(ids('a', 'b'))
    h.feed.connected()
    h.joins[0]!.ack({ ok: true, lastSeq: 0 })
    expect(h.feed.status).toBe('live')
    h.joins[1]!.ack({ ok: false, code: 'JOB_JOIN_FAILED', message: 'the events could not be read' })
    expect(h.feed.status).toBe('offline')
    h.feed.follow(ids('a'))
    expect(h.feed.status).toBe('live')
    expect(h.statuses).toEqual(['connecting', 'live', 'offline', 'live'])
  })

  it("ignores the late ack of a previous connection's join", () => {
    const h = harness()
    h.feed.follow(ids('a'))
    h.feed.connected()
    const stale = h.joins[0]!
    h.feed.disconnected()
    h.feed.connected()
    stale.ack({ ok: false, code: 'BAD_JOIN', message: 'late' })
    expect(h.feed.status).toBe('live')
    h.joins[1]!.ack({ ok: false, code: 'BAD_JOIN', message: 'current' })
    expect(h.feed.status).toBe('offline')
  })

  it('joins from a held record’s lastEventSeq, so nothing the record holds is replayed or applied again', () => {
    const h = harness()
    h.feed.follow([{ id: 'a', lastEventSeq: 5 }, { id: 'b' }])
    h.feed.connected()
    expect(h.joined()).toEqual(['a@5', 'b@0'])
    for (const e of [event('a', 5), event('a', 6), event('b', 1)]) h.feed.receive(e)
    expect(h.applied.map((e) => `${e.id}${e.seq}`)).toEqual(['a6', 'b1'])
    // A newer record moves the mark on: events it already holds, still in flight, are dropped.
    h.feed.follow([{ id: 'a', lastEventSeq: 9 }, { id: 'b' }])
    h.feed.receive(event('a', 8))
    h.feed.receive(event('a', 10))
    expect(h.applied.map((e) => `${e.id}${e.seq}`)).toEqual(['a6', 'b1', 'a10'])
    // An older record never moves it back.
    h.feed.follow([{ id: 'a', lastEventSeq: 2 }])
    expect(h.feed.lastSeq('a')).toBe(10)
  })
})
