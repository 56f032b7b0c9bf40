import {
  type JobJoinAck,
  type JobKind,
  jobEventData,
  serverEventSchemas,
  socketEvents,
} from '@codebook/shared'
import type { z } from 'zod'
import { connected, type EventClient, eventClient } from './event-client.ts'

type KindData<K extends JobKind> = (typeof jobEventData)[K]

/** One event of a kind's feed, its `data` parsed by the shared schema of its type. */
export type FeedEvent<K extends JobKind> = {
  [T in keyof KindData<K>]: {
    id: string
    seq: number
    type: T
    data: KindData<K>[T] extends z.ZodType ? z.infer<KindData<K>[T]> : never
  }
}[keyof KindData<K>]

/** A socket recording every `job:event` of one kind, parsed against the contract (a refused one fails the test). */
export interface JobListener<K extends JobKind> {
  socket: EventClient
  events: FeedEvent<K>[]
  /** Joins job `id`'s feed; the server replays every event after `lastSeq`, then sends live ones. */
  join(id: string, lastSeq?: number): Promise<JobJoinAck>
}

/** Connects a socket that listens to the `kind` feed (join jobs with `join`). */
export async function listenToJobs<K extends JobKind>(url: string, kind: K): Promise<JobListener<K>> {
  const socket = eventClient(url)
  const events: FeedEvent<K>[] = []
  socket.on(socketEvents.jobEvent, (raw) => {
    // The wire is checked against the contract, not the server's TypeScript types.
    const e = serverEventSchemas[socketEvents.jobEvent].parse(raw)
    if (e.kind !== kind) throw new Error(`a ${e.kind} event on a ${kind} listener`)
    const schema = (jobEventData[kind] as Record<string, z.ZodType>)[e.type]
    if (schema === undefined) throw new Error(`${kind} event ${e.seq} has an unknown type ${e.type}`)
    events.push({ id: e.id, seq: e.seq, type: e.type, data: schema.parse(e.data) } as FeedEvent<K>)
  })
  await connected(socket)
  return {
    socket,
    events,
    join: (id, lastSeq = 0) => socket.emitWithAck(socketEvents.jobJoin, { kind, id, lastSeq }),
  }
}
