import type { DatasetFormat } from '@codebook/shared'
import { openByteSource } from './byte-source.ts'
import { csvReader } from './csv.ts'
import { detectFormat } from './detect.ts'
import { hogTextReader } from './hog-text.ts'
import type { ReaderLimits } from './limits.ts'
import { npyReader } from './npy/npy-reader.ts'
import type { VectorReader } from './row-batch.ts'
import { vecsReader } from './vecs.ts'

/** How to open an input: its format (detected when absent), an abort signal, and the reader limits. */
export interface OpenReaderOptions extends ReaderLimits {
  format?: DatasetFormat
  signal?: AbortSignal
}

/** Opens `file` for one streaming pass in `options.format` (detected when not given). */
export async function openVectorReader(file: string, options: OpenReaderOptions = {}): Promise<VectorReader> {
  const fmt = options.format ?? (await detectFormat(file))
  const src = await openByteSource(file, options.signal, options)
  switch (fmt) {
    case 'hog-text':
      return hogTextReader(src, options)
    case 'csv':
      return csvReader(src, options)
    case 'npy':
      return npyReader(src)
    case 'fvecs':
    case 'bvecs':
      return vecsReader(src, fmt)
  }
}
