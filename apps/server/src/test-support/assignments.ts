/** Test oracles for assignment exports, written independently of the server's writer. */

/** A parsed structured .npy: its field names and each field's values by row. */
export interface ParsedRecords {
  fields: string[]
  n: number
  columns: Record<string, number[]>
}

const FIELD_READERS: Record<string, { bytes: number; read: (b: Buffer, at: number) => number }> = {
  '<i8': { bytes: 8, read: (b, at) => Number(b.readBigInt64LE(at)) },
  '<i4': { bytes: 4, read: (b, at) => b.readInt32LE(at) },
  '<f8': { bytes: 8, read: (b, at) => b.readDoubleLE(at) },
}

/** Parses a 1-D structured .npy (format 1.0) from the NumPy format spec: header dict, then packed records. */
export function parseStructuredNpy(file: Buffer): ParsedRecords {
  if (file.subarray(0, 6).toString('latin1') !== '\x93NUMPY') throw new Error('not a .npy')
  const headerLength = file.readUInt16LE(8)
  const dict = file.subarray(10, 10 + headerLength).toString('latin1')
  if ((10 + headerLength) % 64 !== 0) throw new Error('data does not start on a 64-byte boundary')
  const fieldList = [...dict.matchAll(/\('([a-z_]+)', '([<|][a-z]\d)'\)/g)].map(
    (m) => [m[1]!, m[2]!] as const,
  )
  const n = Number(/'shape': \((\d+),\)/.exec(dict)![1])
  const columns: Record<string, number[]> = {}
  const size = fieldList.reduce((s, [, t]) => s + FIELD_READERS[t]!.bytes, 0)
  if (file.length !== 10 + headerLength + n * size)
    throw new Error(`file length ${file.length} is not ${n} records`)
  let offset = 0
  for (const [name, type] of fieldList) {
    const reader = FIELD_READERS[type]!
    const values: number[] = []
    for (let i = 0; i < n; i++) values.push(reader.read(file, 10 + headerLength + i * size + offset))
    columns[name] = values
    offset += reader.bytes
  }
  return { fields: fieldList.map(([name]) => name), n, columns }
}

/** Brute force: every point against every centroid in float64, ties to the lowest index. */
export function bruteForceAssign(
  points: Float32Array,
  centroids: Float32Array,
  d: number,
): { words: number[]; distances: number[] } {
  const words: number[] = []
  const distances: number[] = []
  for (let i = 0; i < points.length / d; i++) {
    let best = Number.POSITIVE_INFINITY
    let word = -1
    for (let j = 0; j < centroids.length / d; j++) {
      // The exported distance's definition, written out: float64 squares summed in four running
      // sums (dimension t mod 4), added as (s0 + s1) + (s2 + s3). A single running sum can differ
      // from it in the last bit, and the export is compared bit for bit.
      const lanes = [0, 0, 0, 0]
      const full = d - (d % 4)
      for (let t = 0; t < d; t++)
        lanes[t < full ? t % 4 : 0]! += (points[i * d + t]! - centroids[j * d + t]!) ** 2
      const sum = lanes[0]! + lanes[1]! + (lanes[2]! + lanes[3]!)
      if (sum < best) {
        best = sum
        word = j
      }
    }
    words.push(word)
    distances.push(best)
  }
  return { words, distances }
}

/** Parses an assignments CSV into its header and numeric columns. */
export function parseCsv(text: string): ParsedRecords {
  const [head = '', ...lines] = text.trimEnd().split('\n')
  const fields = head.split(',')
  const columns: Record<string, number[]> = Object.fromEntries(fields.map((f) => [f, []]))
  for (const line of lines) {
    for (const [j, v] of line.split(',').entries()) columns[fields[j]!]!.push(Number(v))
  }
  return { fields, n: lines.length, columns }
}
