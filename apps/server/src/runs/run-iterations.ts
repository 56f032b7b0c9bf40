import { type IterationRow, type StageName, stageNames } from '@codebook/shared'
import { and, asc, eq, sql } from 'drizzle-orm'
import type { Database } from '../db/db-plugin.ts'
import { jobEvents } from '../db/schema.ts'

/** The stored part of an iteration report this reads (workers' detail stays in the database). */
interface StoredIteration {
  iteration: number
  inertia: number
  reassigned: number
  stages: Partial<Record<StageName, { ms?: number; bytes?: number }>>
}

/**
 * One row per iteration of run `id`, from its `iteration` events in seq order: a resumed run
 * reports an iteration again, and the last report of each number wins. Only the few fields a row
 * needs leave the database (a 64-worker report is ~50 kB).
 */
export async function readIterations(db: Database, id: string): Promise<IterationRow[]> {
  const rows = await db
    .select({
      data: sql<StoredIteration>`jsonb_build_object('iteration', ${jobEvents.data}->'iteration', 'inertia', ${jobEvents.data}->'inertia', 'reassigned', ${jobEvents.data}->'reassigned', 'stages', ${jobEvents.data}->'stages')`,
    })
    .from(jobEvents)
    .where(and(eq(jobEvents.kind, 'run'), eq(jobEvents.jobId, id), eq(jobEvents.type, 'iteration')))
    .orderBy(asc(jobEvents.seq))
  const byIteration = new Map<number, IterationRow>()
  for (const { data } of rows) {
    const stages = {} as IterationRow['stages']
    for (const stage of stageNames)
      stages[stage] = { ms: data.stages?.[stage]?.ms ?? 0, bytes: data.stages?.[stage]?.bytes ?? 0 }
    byIteration.set(data.iteration, {
      iteration: data.iteration,
      inertia: data.inertia,
      reassigned: data.reassigned,
      stages,
    })
  }
  return [...byIteration.values()].sort((a, b) => a.iteration - b.iteration)
}

/** The CSV header of {@link iterationsCsv}. */
export const ITERATIONS_CSV_HEADER = [
  'iteration',
  'inertia',
  'reassigned',
  ...stageNames.flatMap((stage) => [`${stage}_ms`, `${stage}_bytes`]),
].join(',')

/**
 * The rows as CSV with a header line. Numbers are JavaScript's shortest round-trip form, so the
 * inertia reads back as the same float64 the runtime reported.
 */
export function iterationsCsv(rows: readonly IterationRow[]): string {
  const lines = rows.map((r) =>
    [
      r.iteration,
      r.inertia,
      r.reassigned,
      ...stageNames.flatMap((stage) => [r.stages[stage].ms, r.stages[stage].bytes]),
    ].join(','),
  )
  return `${[ITERATIONS_CSV_HEADER, ...lines].join('\n')}\n`
}
