import {
  type JobEventData,
  type JobEventType,
  type JobKind,
  type JobSocketEvent,
  jobEventData,
} from '@codebook/shared'

/** A `job:event` of kind `K` whose `data` matched its type's schema: a union narrowed by `type`. */
export type ParsedJobEvent<K extends JobKind> = {
  [T in JobEventType<K>]: { id: string; seq: number; type: T; data: JobEventData<K, T> }
}[JobEventType<K>]

/** The part of a zod schema this module uses (the web app does not depend on zod itself). */
type DataSchema = { safeParse(value: unknown): { success: true; data: unknown } | { success: false } }

/**
 * Checks a `job:event` against `jobEventData[kind][type]`. Null when it is another kind's, of a
 * type the kind does not have, or its data does not match: the caller ignores it.
 */
export function parseJobEvent<K extends JobKind>(kind: K, event: JobSocketEvent): ParsedJobEvent<K> | null {
  if (event.kind !== kind) return null
  const schemas: Record<string, DataSchema> = jobEventData[kind]
  // Own keys only: `type` comes from the network and could name `constructor`.
  if (!Object.hasOwn(schemas, event.type)) return null
  const data = schemas[event.type]!.safeParse(event.data)
  if (!data.success) return null
  return { id: event.id, seq: event.seq, type: event.type, data: data.data } as ParsedJobEvent<K>
}
