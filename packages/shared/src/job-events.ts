import type { z } from 'zod'
import { evaluationEventData } from './evaluations.ts'
import type { JobKind } from './jobs.ts'
import { runEventData } from './runs.ts'
import { studyEventData } from './studies.ts'

/**
 * The schema of a job event's `data` for each kind and event type: a receiver of `job:event` (or
 * of `GET …/:id/events`) parses `data` with `jobEventData[kind][type]`. Every kind has `state`
 * (the whole record, on each status change) and `progress`.
 */
export const jobEventData = {
  run: runEventData,
  evaluation: evaluationEventData,
  study: studyEventData,
} as const satisfies Record<JobKind, Record<string, z.ZodType> & { state: z.ZodType; progress: z.ZodType }>

/** The event types of a kind. */
export type JobEventType<K extends JobKind> = keyof (typeof jobEventData)[K] & string

/** A job event's `data` typed by its kind and type. */
export type JobEventData<K extends JobKind, T extends JobEventType<K>> = z.infer<
  (typeof jobEventData)[K][T] extends z.ZodType ? (typeof jobEventData)[K][T] : never
>
