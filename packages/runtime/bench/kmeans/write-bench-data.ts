/**
 * Writes the data of a kernel-bench run as .npy so other implementations (scikit-learn, FAISS
 * in test/bench/anchors) run on exactly the same points and initial centroids:
 *
 *   npx tsx bench/kmeans/write-bench-data.ts --n 100000 --d 512 --k 1000 --blobs 0 --seed 1 --out /tmp/anchors
 *
 * Produces <out>/points.npy (n × d float32) and <out>/init.npy (k × d float32), and prints the
 * checksum kernel-bench also prints, so a mismatch in generation shows.
 */
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { writeNpy } from '../../src/formats/npy/npy-writer.ts'
import { benchData } from '../../src/kmeans/bench-data.ts'

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '20000' },
    d: { type: 'string', default: '128' },
    k: { type: 'string', default: '256' },
    blobs: { type: 'string', default: '0' },
    seed: { type: 'string', default: '1' },
    out: { type: 'string', default: '.' },
  },
})
const n = Number(values.n)
const d = Number(values.d)
const k = Number(values.k)
const { points, init, checksum } = benchData(n, d, k, Number(values.blobs), Number(values.seed))
await mkdir(values.out, { recursive: true })
await writeNpy(join(values.out, 'points.npy'), points, n, d)
await writeNpy(join(values.out, 'init.npy'), init, k, d)
process.stdout.write(
  `${JSON.stringify({ n, d, k, checksum: Math.round(checksum * 1e4) / 1e4, out: values.out })}\n`,
)
