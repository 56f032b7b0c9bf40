/**
 * Writes the data of a kernel-bench run as .npy so other implementations (scikit-learn, FAISS
 * in test/bench/anchors) run on exactly the same points and initial centroids:
 *
 *   npx tsx bench/kmeans/write-bench-data.ts --n 100000 --d 512 --k 1000 --blobs 0 --seed 1 --out /tmp/anchors
 *
 * Produces <out>/points.npy (n × d float32) and <out>/init.npy (k × d float32), and prints the
 * checksum kernel-bench also prints, so a mismatch in generation shows. `--dtype uint8` writes
 * the HOG-like bytes `bench kmeans --dtype uint8` generates instead (points n × d uint8, init the
 * k sampled rows as float32; no checksum).
 */
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { writeNpy } from '../../src/formats/npy/npy-writer.ts'
import { benchData, byteBenchData } from '../../src/kmeans/bench-data.ts'

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '20000' },
    d: { type: 'string', default: '128' },
    k: { type: 'string', default: '256' },
    blobs: { type: 'string', default: '0' },
    seed: { type: 'string', default: '1' },
    out: { type: 'string', default: '.' },
    dtype: { type: 'string', default: 'float32' },
  },
})
if (values.dtype !== 'float32' && values.dtype !== 'uint8')
  throw new Error(`--dtype: float32 or uint8, not ${values.dtype}`)
const n = Number(values.n)
const d = Number(values.d)
const k = Number(values.k)
const blobs = Number(values.blobs)
const seed = Number(values.seed)
const data =
  values.dtype === 'uint8'
    ? { ...byteBenchData(n, d, k, blobs, seed), checksum: null }
    : benchData(n, d, k, blobs, seed)
await mkdir(values.out, { recursive: true })
await writeNpy(join(values.out, 'points.npy'), data.points, n, d)
await writeNpy(join(values.out, 'init.npy'), data.init, k, d)
const checksum = data.checksum === null ? null : Math.round(data.checksum * 1e4) / 1e4
process.stdout.write(`${JSON.stringify({ n, d, k, dtype: values.dtype, checksum, out: values.out })}\n`)
