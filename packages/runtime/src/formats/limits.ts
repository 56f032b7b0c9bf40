/**
 * Bounds on what one input may make a reader hold or produce. Untrusted files (server uploads)
 * must not exhaust memory or disk, so every reader checks these while streaming and fails with
 * a coded error the moment one is crossed, never after buffering the excess.
 */
export interface ReaderLimits {
  /** Longest text line in bytes (HOG text, CSV), newline excluded; default `DEFAULT_MAX_LINE_BYTES`. */
  maxLineBytes?: number
  /** Most fields on one text line (ids included); default `DEFAULT_MAX_FIELDS`. */
  maxFields?: number
  /** Most decompressed bytes a gzip input may expand to; unbounded when absent. */
  maxExpandedBytes?: number
}

/** 1 MiB: a 512-d float line is a few KB, so this is generous for real data and small for memory. */
export const DEFAULT_MAX_LINE_BYTES = 1 << 20

/** 65,536 fields: far more than any descriptor (SIFT 128, HOG a few thousand, CLIP 512–1,024). */
export const DEFAULT_MAX_FIELDS = 1 << 16

/**
 * Largest Fortran-order .npy that is transposed in memory (a gzip input cannot be read out of
 * order); a plain file of any size is transposed by reading row blocks from disk instead.
 */
export const MAX_IN_MEMORY_TRANSPOSE_BYTES = 256 << 20
