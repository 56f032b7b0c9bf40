import { access } from 'node:fs/promises'
import { DatasetFormatError } from '../errors.ts'
import { writeNpy } from '../formats/npy/npy-writer.ts'
import { openVectorReader } from '../formats/readers.ts'
import { type CommMatrix, fromDense, toDense } from './comm-matrix.ts'

/** `traffic.npy` → `traffic.messages.npy`: where the message counts of a volume matrix live. */
export function messagesFileFor(file: string): string {
  return file.replace(/(\.npy)?$/i, '.messages.npy')
}

/**
 * Writes a matrix as .npy: the N × N volume (bytes, float32 as every .npy Codebook writes) to
 * `file` and the message counts to its `.messages.npy` sibling. NumPy reads both with `np.load`.
 */
export async function writeCommMatrixNpy(file: string, m: CommMatrix): Promise<void> {
  const { volume, messages } = toDense(m)
  const n = m.processes
  await writeNpy(file, Float32Array.from(volume), n, n)
  await writeNpy(messagesFileFor(file), Float32Array.from(messages), n, n)
}

/**
 * Reads a communication matrix from a square .npy of volumes in bytes (float32 or float64, as
 * NumPy writes them; i → j in row i, column j) and, when present, its `.messages.npy` sibling
 * of message counts; without it every non-zero volume is one message. Not square, negative or
 * non-finite → `BAD_MATRIX` with the row.
 */
export async function readCommMatrixNpy(file: string): Promise<CommMatrix> {
  const volume = await readSquare(file)
  const sibling = messagesFileFor(file)
  const hasMessages = await access(sibling).then(
    () => true,
    () => false,
  )
  if (!hasMessages) return fromDense(volume.n, volume.values)
  const messages = await readSquare(sibling)
  if (messages.n !== volume.n)
    throw new DatasetFormatError(
      'BAD_MATRIX',
      `${sibling}: ${messages.n} × ${messages.n} message counts for a ${volume.n} × ${volume.n} volume matrix`,
      { file: sibling },
    )
  return fromDense(volume.n, volume.values, messages.values)
}

async function readSquare(file: string): Promise<{ n: number; values: Float32Array }> {
  const reader = await openVectorReader(file, { format: 'npy' })
  const parts: Float32Array[] = []
  let n = 0
  for await (const batch of reader.batches()) {
    if (batch.values instanceof Uint8Array) {
      parts.push(Float32Array.from(batch.values))
    } else parts.push(batch.values)
    n = batch.d
    for (let r = 0; r < batch.rows; r++)
      for (let c = 0; c < batch.d; c++) {
        const v = batch.values[r * batch.d + c]!
        if (!(v >= 0) || !Number.isFinite(v))
          throw new DatasetFormatError(
            'BAD_MATRIX',
            `entry (${batch.firstRow + r}, ${c}) is ${v}; volumes are bytes ≥ 0`,
            {
              file,
              row: batch.firstRow + r,
            },
          )
      }
  }
  const rows = parts.reduce((sum, p) => sum + p.length, 0) / Math.max(n, 1)
  if (n === 0 || rows !== n)
    throw new DatasetFormatError(
      'BAD_MATRIX',
      `a communication matrix must be square N × N, got ${rows} × ${n}`,
      {
        file,
      },
    )
  const values = new Float32Array(n * n)
  let off = 0
  for (const p of parts) {
    values.set(p, off)
    off += p.length
  }
  return { n, values }
}
