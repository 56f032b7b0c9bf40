import type { DatasetFormat } from '@codebook/shared'
import { openByteSource } from './byte-source.ts'
import { csvReader } from './csv.ts'
import { detectFormat } from './detect.ts'
import { hogTextReader } from './hog-text.ts'
import { npyReader } from './npy/npy-reader.ts'
import type { VectorReader } from './row-batch.ts'
import { vecsReader } from './vecs.ts'

/** Opens `file` for one streaming pass in `format` (detected when not given). */
export async function openVectorReader(
  file: string,
  format?: DatasetFormat,
  signal?: AbortSignal,
): Promise<VectorReader> {
  const fmt = format ?? (await detectFormat(file))
  const src = await openByteSource(file, signal)
  switch (fmt) {
    case 'hog-text':
      return hogTextReader(src)
    case 'csv':
      return csvReader(src)
    case 'npy':
      return npyReader(src)
    case 'fvecs':
    case 'bvecs':
      return vecsReader(src, fmt)
  }
}
