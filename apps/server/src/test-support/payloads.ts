import { createRng } from '@codebook/runtime/kmeans'

/** A vector set built in a test, with the values every reader must give back exactly. */
export interface TestVectors {
  n: number
  d: number
  values: Float32Array
  /** (pictureId, rowId, colId) per row, for HOG text. */
  ids: Int32Array
}

/**
 * Seeded vectors whose values are multiples of 1/16 in [-8, 8): exact in float32 and in short
 * decimal text, so a round trip through any format can be compared with `toEqual`.
 */
export function makeVectors(n: number, d: number, seed: number): TestVectors {
  const rng = createRng(seed)
  const values = new Float32Array(n * d)
  for (let i = 0; i < values.length; i++) values[i] = (rng.int(256) - 128) / 16
  const ids = new Int32Array(n * 3)
  for (let i = 0; i < n; i++) {
    ids[i * 3] = Math.floor(i / 4)
    ids[i * 3 + 1] = 8 * (i % 2)
    ids[i * 3 + 2] = 8 * Math.floor((i % 4) / 2)
  }
  return { n, d, values, ids }
}

/** HOG text (`pictureId rowId colId f1 … fd` per line), written here independently of the runtime's writer. */
export function hogText(v: TestVectors): string {
  const lines: string[] = []
  for (let i = 0; i < v.n; i++) {
    const ids = Array.from(v.ids.subarray(i * 3, i * 3 + 3))
    const row = Array.from(v.values.subarray(i * v.d, (i + 1) * v.d), (x) => String(x))
    lines.push([...ids, ...row].join(' '))
  }
  return `${lines.join('\n')}\n`
}

/** A float32 C-order 2-D .npy (format 1.0), written by hand from the NumPy format spec. */
export function npyFloat32(v: TestVectors): Buffer {
  const dict = `{'descr': '<f4', 'fortran_order': False, 'shape': (${v.n}, ${v.d}), }`
  // magic(6) + version(2) + header length(2) + header, padded with spaces to a multiple of 64, ending in \n.
  const unpadded = 10 + dict.length + 1
  const header = dict + ' '.repeat((64 - (unpadded % 64)) % 64) + '\n'
  const prefix = Buffer.alloc(10)
  Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]).copy(prefix, 0)
  prefix[6] = 1
  prefix[7] = 0
  prefix.writeUInt16LE(header.length, 8)
  const body = Buffer.from(v.values.buffer, v.values.byteOffset, v.values.byteLength)
  return Buffer.concat([prefix, Buffer.from(header, 'latin1'), body])
}
