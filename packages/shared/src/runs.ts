import { z } from 'zod'

/** The five stages of a Map-Collective K-means iteration, in order. */
export const stageNames = ['broadcast', 'map', 'shuffle', 'reduce', 'combine'] as const
export const StageName = z.enum(stageNames)
export type StageName = z.infer<typeof StageName>

/** One stage of one iteration, over all workers. Bytes are payload bytes (frame headers excluded). */
export const StageReport = z.object({
  /** Critical path: the slowest worker's time in this stage, ms. */
  ms: z.number().nonnegative(),
  /** Bytes sent by all workers in this stage. */
  bytes: z.number().int().nonnegative(),
  /** Of `bytes`, those sent to a worker in the same rack. */
  intraRackBytes: z.number().int().nonnegative(),
  /** Of `bytes`, those sent to a worker in another rack. */
  crossRackBytes: z.number().int().nonnegative(),
})
export type StageReport = z.infer<typeof StageReport>

/** One stage at one worker. */
export const WorkerStageReport = z.object({
  ms: z.number().nonnegative(),
  bytesSent: z.number().int().nonnegative(),
  bytesReceived: z.number().int().nonnegative(),
  intraRackBytes: z.number().int().nonnegative(),
  crossRackBytes: z.number().int().nonnegative(),
})
export type WorkerStageReport = z.infer<typeof WorkerStageReport>

/** Per-worker detail of an iteration. */
export const WorkerIterationReport = z.object({
  rank: z.number().int().nonnegative(),
  rack: z.string(),
  /** Vectors this worker holds. */
  points: z.number().int().nonnegative(),
  stages: z.record(StageName, WorkerStageReport),
  /** Sum of squared distances of this worker's vectors to their nearest centroid. */
  inertia: z.number().nonnegative(),
  reassigned: z.number().int().nonnegative(),
  /** Point–centroid distances this worker's map tasks evaluated (absent in older reports). */
  distancesEvaluated: z.number().nonnegative().optional(),
  /** Peak resident set of this worker's process so far, bytes (absent in older reports). */
  maxRssBytes: z.number().nonnegative().optional(),
})
export type WorkerIterationReport = z.infer<typeof WorkerIterationReport>

/** The report of one K-means iteration on the runtime, as stored and streamed by the server. */
export const IterationReport = z.object({
  /** 1-based iteration number. */
  iteration: z.number().int().positive(),
  stages: z.record(StageName, StageReport),
  /** Inertia of the assignment to this iteration's input centroids. */
  inertia: z.number().nonnegative(),
  /** Vectors whose nearest centroid changed (all of them in the first iteration). */
  reassigned: z.number().int().nonnegative(),
  /** Empty clusters replaced by a perturbed copy of the largest cluster's centroid. */
  emptyClustersSplit: z.number().int().nonnegative(),
  /** Intermediate key-value messages by encoding (chosen automatically: the smaller form). */
  encoding: z.object({
    sparseMessages: z.number().int().nonnegative(),
    denseMessages: z.number().int().nonnegative(),
  }),
  /** Times this iteration was re-run from the checkpoint after a worker was lost or a broadcast failed. */
  restarts: z.number().int().nonnegative(),
  workers: z.array(WorkerIterationReport),
  /**
   * Point–centroid distances evaluated by all map tasks ÷ (n·k): 1 for Lloyd; below 1 once
   * Hamerly / Yinyang bounds prune (dense passes count every entry, so ≥ 1 on the first iteration).
   */
  distanceFraction: z.number().nonnegative().optional(),
  /** Broadcast payload bytes the centroid encoding saved against float32, over all receivers. */
  broadcastBytesSaved: z.number().int().optional(),
})
export type IterationReport = z.infer<typeof IterationReport>
