import { z } from 'zod'
import { NextBefore } from './list-page.ts'
import { DisplayName, printableString } from './names.ts'

/** Input formats Codebook reads; the names are used by the CLI's `--format` and the API's `format`. */
export const datasetFormats = ['hog-text', 'npy', 'fvecs', 'bvecs', 'csv'] as const
export const DatasetFormat = z.enum(datasetFormats)
export type DatasetFormat = z.infer<typeof DatasetFormat>

/** Element type of stored vectors. uint8 (quantised HOG) is kept as is and widened when used. */
export const VectorDtype = z.enum(['float32', 'uint8'])
export type VectorDtype = z.infer<typeof VectorDtype>

/** Summary statistics of a vector set, computed in one streaming pass. */
export const VectorStats = z.object({
  n: z.number().int().nonnegative(),
  d: z.number().int().nonnegative(),
  dtype: VectorDtype,
  format: DatasetFormat,
  /** Size of the source file in bytes (compressed size for gzip). */
  bytes: z.number().int().nonnegative(),
  /** Whether rows carry (pictureId, rowId, colId) ids — HOG text does. */
  hasIds: z.boolean(),
  /**
   * What the import converted or skipped to read the source, one phrase each ("converted from
   * float64", "transposed from Fortran order", "skipped a UTF-8 byte-order mark"); absent in
   * stats stored before notes existed.
   */
  notes: z.array(z.string()).optional(),
  dims: z.object({
    min: z.array(z.number()),
    max: z.array(z.number()),
    mean: z.array(z.number()),
  }),
  norms: z.object({
    /** L2-norm quantiles at q = 0, 0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99, 1. */
    quantiles: z.array(z.object({ q: z.number(), value: z.number() })),
    /** Histogram of L2 norms: `edges` has one more entry than `counts`. */
    histogram: z.object({ edges: z.array(z.number()), counts: z.array(z.number().int()) }),
  }),
})
export type VectorStats = z.infer<typeof VectorStats>

export const DatasetStatus = z.enum(['processing', 'ready', 'failed'])
export type DatasetStatus = z.infer<typeof DatasetStatus>

/** A stored dataset as the API returns it. n, d, dtype are null until processing has finished. */
export const Dataset = z.object({
  id: z.string(),
  name: z.string(),
  format: DatasetFormat.nullable(),
  status: DatasetStatus,
  n: z.number().int().nullable(),
  d: z.number().int().nullable(),
  dtype: VectorDtype.nullable(),
  /** Bytes of the uploaded source file. */
  sourceBytes: z.number().int().nonnegative(),
  /** Fraction of the source processed, 0..1. */
  progress: z.number().min(0).max(1),
  error: z.object({ code: z.string(), message: z.string() }).nullable().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
})
export type Dataset = z.infer<typeof Dataset>

/** `GET /api/datasets?limit&before`: one page, newest first (see {@link ListPageQuery}). */
export const DatasetList = z.object({ datasets: z.array(Dataset), nextBefore: NextBefore })
export type DatasetList = z.infer<typeof DatasetList>

/** Query of the direct upload `POST /api/datasets?name=…&format=…` (file as the raw body). */
export const CreateDatasetQuery = z.object({
  name: DisplayName,
  format: DatasetFormat.optional(),
})
export type CreateDatasetQuery = z.infer<typeof CreateDatasetQuery>

/** Metadata a tus upload carries (tus `Upload-Metadata`, base64 values). */
export const UploadMetadata = z.object({
  name: DisplayName,
  filename: printableString(1000).optional(),
  format: DatasetFormat.optional(),
})
export type UploadMetadata = z.infer<typeof UploadMetadata>

export const DatasetPreview = z.object({
  datasetId: z.string(),
  /** First rows of the dataset; `ids` is [pictureId, rowId, colId] when the source had ids. */
  rows: z.array(
    z.object({
      index: z.number().int(),
      ids: z.array(z.number().int()).nullable(),
      /** The picture's name when the source named its pictures (HOG ids as names); ids[0] is then its index. */
      picture: z.string().nullable().optional(),
      values: z.array(z.number()),
    }),
  ),
  stats: VectorStats,
})
export type DatasetPreview = z.infer<typeof DatasetPreview>

/** socket.io event the server emits to every client while a dataset is processed: `dataset:event`. */
export const DatasetEvent = z.object({
  datasetId: z.string(),
  type: z.enum(['progress', 'state', 'deleted']),
  /** progress: { fraction, rows }; state: the whole Dataset record; deleted: {} (the dataset is gone). */
  data: z.record(z.string(), z.unknown()),
})
export type DatasetEvent = z.infer<typeof DatasetEvent>

/** `GET /api/uploads/:uploadId`: the dataset a finished tus upload became (the tus response may have been lost). */
export const UploadDataset = z.object({ datasetId: z.string() })
export type UploadDataset = z.infer<typeof UploadDataset>
