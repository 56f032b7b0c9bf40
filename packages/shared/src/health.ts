import { z } from 'zod'

export const Health = z.object({
  status: z.literal('ok'),
  version: z.string(),
  database: z.enum(['pglite', 'postgres']),
  uptimeSeconds: z.number(),
})
export type Health = z.infer<typeof Health>

/**
 * `GET /api/limits`: what this server enforces on a run, so a client can check a form before
 * submitting it (the server still checks every request).
 */
export const ServerLimits = z.object({
  /** `CODEBOOK_MAX_WORKERS_PER_RUN`: a run with more workers is refused (400 `RUN_TOO_LARGE`). */
  maxWorkersPerRun: z.number().int().positive(),
  /** `CODEBOOK_MAX_QUEUED_RUNS`: further runs are refused (429 `QUEUE_FULL`). */
  maxQueuedRuns: z.number().int().positive(),
  /** `CODEBOOK_MAX_UPLOAD_BYTES`. */
  maxUploadBytes: z.number().int().positive(),
  /** Assignment kernels this server's runtime knows; any other name is refused (400 `KERNEL_UNKNOWN`). */
  kernels: z.array(z.string()).min(1),
})
export type ServerLimits = z.infer<typeof ServerLimits>
