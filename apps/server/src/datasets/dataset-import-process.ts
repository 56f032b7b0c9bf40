import type { ImportProgress } from '@codebook/runtime/formats'
import type { DatasetFormat, VectorStats } from '@codebook/shared'
import { childCommand } from '../child/child-command.ts'
import { type ChildJob, ChildJobError, startChildJob } from '../child/child-job.ts'

/**
 * Bounds handed unchanged to the runtime's `importToStore` (every option but format, signal and
 * progress): `maxExpandedBytes` (CODEBOOK_MAX_EXPANDED_BYTES) and whatever bounds the runtime adds.
 */
export type DatasetImportOptions = { maxExpandedBytes?: number } & Record<string, number | undefined>

/** Memory limits of one import child: a hostile file fails its import, never the server. */
export interface ImportChildLimits {
  /** V8 heap of the child, MB (`--max-old-space-size`). */
  maxHeapMb: number
  /**
   * Resident memory of the child, bytes, checked every 100 ms: buffers (a line that never ends,
   * held until its newline) live outside the V8 heap, so the heap limit alone does not bound them.
   */
  maxRssBytes: number
}

/**
 * Defaults: an import streams batches of about a MB and keeps per-dimension stats, so it needs
 * far less: a 616 MB HOG text of d = 512 peaked at ≈ 200 MB RSS (measured 25 Nov 2026).
 */
export const IMPORT_CHILD_LIMITS: ImportChildLimits = { maxHeapMb: 768, maxRssBytes: 1024 ** 3 }

/** What the import child needs. */
export interface ImportJob {
  uploadPath: string
  destDir: string
  format: DatasetFormat | undefined
  options: DatasetImportOptions
  /** Minimum time between two progress messages. */
  progressIntervalMs: number
  maxRssBytes: number
  /** Free disk the import leaves: the child fails INSUFFICIENT_SPACE when the free space falls under it. */
  diskReserveBytes: number
}

/** Child → parent, besides `done` / `error`. */
export type ImportMessage =
  | { type: 'progress'; progress: ImportProgress }
  | { type: 'ready'; stats: VectorStats }

/**
 * Runs one dataset import (`importToStore`) in a child process (`dataset-import-child.ts`), so
 * parsing a large or hostile file never blocks the server's event loop nor takes its memory.
 * `done` rejects with the runtime's code (`WRONG_FIELD_COUNT`, …), `IMPORT_MEMORY_LIMIT` from the
 * child's watchdog, or `IMPORT_CRASHED` when the child dies (out of heap, killed).
 */
export function runImportProcess(
  job: ImportJob,
  limits: ImportChildLimits,
  onMessage: (message: ImportMessage) => void,
): ChildJob {
  return startChildJob<ImportJob, ImportMessage>(
    childCommand(import.meta.url, './dataset-import-child', { maxHeapMb: limits.maxHeapMb }),
    job,
    {
      onMessage,
      crashed: (exit) =>
        new ChildJobError(
          'IMPORT_CRASHED',
          `the import process exited (${exit}); the file may need more than its ${limits.maxHeapMb} MB heap`,
        ),
    },
  )
}
