import { type FileHandle, open } from 'node:fs/promises'
import { writeAtomically } from '../atomic.ts'
import { buildNpyHeader, ITEM_BYTES, NPY_FIXED_HEADER_BYTES, type NpyDtype } from './npy-header.ts'

/**
 * Appends rows to a 2-D .npy whose row count is unknown until the end: a fixed-size header
 * placeholder goes first and is rewritten with the real n by `finish()`. Not atomic by itself;
 * callers write to a temporary path and rename.
 */
export class NpyStreamWriter {
  private n = 0
  private position = NPY_FIXED_HEADER_BYTES

  private constructor(
    private readonly fh: FileHandle,
    readonly dtype: NpyDtype,
    readonly d: number,
  ) {}

  /** Creates (or truncates) `file` and reserves the header. */
  static async create(file: string, dtype: NpyDtype, d: number): Promise<NpyStreamWriter> {
    const fh = await open(file, 'w')
    try {
      await fh.write(buildNpyHeader(dtype, 0, d), 0, NPY_FIXED_HEADER_BYTES, 0)
    } catch (err) {
      await fh.close()
      throw err
    }
    return new NpyStreamWriter(fh, dtype, d)
  }

  /** Appends `rows` rows held in `data` (exactly rows × d elements of this writer's dtype). */
  async append(data: Float32Array | Uint8Array | Int32Array, rows: number): Promise<void> {
    const bytes = new Uint8Array(data.buffer, data.byteOffset, rows * this.d * ITEM_BYTES[this.dtype])
    let done = 0
    while (done < bytes.length) {
      const { bytesWritten } = await this.fh.write(bytes, done, bytes.length - done, this.position + done)
      done += bytesWritten
    }
    this.position += bytes.length
    this.n += rows
  }

  /** Rewrites the header with the final n and closes the file. */
  async finish(): Promise<void> {
    try {
      await this.fh.write(buildNpyHeader(this.dtype, this.n, this.d), 0, NPY_FIXED_HEADER_BYTES, 0)
      await this.fh.sync()
    } finally {
      await this.fh.close()
    }
  }

  /** Closes without finishing (after an error; the caller removes the file). */
  async abort(): Promise<void> {
    await this.fh.close().catch(() => {})
  }
}

/** The .npy dtype matching a typed array. */
export function npyDtypeOf(data: Float32Array | Uint8Array | Int32Array): NpyDtype {
  if (data instanceof Float32Array) return 'float32'
  if (data instanceof Int32Array) return 'int32'
  return 'uint8'
}

/** Writes a whole in-memory n × d matrix as .npy, atomically (temporary sibling renamed on success). */
export async function writeNpy(
  file: string,
  data: Float32Array | Uint8Array | Int32Array,
  n: number,
  d: number,
): Promise<void> {
  if (data.length !== n * d) throw new RangeError(`writeNpy: ${data.length} elements is not ${n} × ${d}`)
  await writeAtomically(file, async (tmp) => {
    const w = await NpyStreamWriter.create(tmp, npyDtypeOf(data), d)
    try {
      await w.append(data, n)
    } catch (err) {
      await w.abort()
      throw err
    }
    await w.finish()
  })
}
