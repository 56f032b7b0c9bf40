// Benchmark (not a test): generates a seeded HOG text file of 512-d rows and converts it to .npy,
// printing throughput and peak RSS. Run from the repo root:
//   node --conditions=@codebook/source --import tsx packages/runtime/bench/convert-bench.ts --gb 1 [--keep] [--gzip]

import { once } from 'node:events'
import { createWriteStream } from 'node:fs'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { createGzip } from 'node:zlib'
import { convertToNpy } from '../src/formats/index.ts'
import { createRng } from '../src/random/rng.ts'

const { values } = parseArgs({
  options: {
    gb: { type: 'string', default: '1' },
    d: { type: 'string', default: '512' },
    seed: { type: 'string', default: '1' },
    keep: { type: 'boolean', default: false },
    gzip: { type: 'boolean', default: false },
  },
})
const targetBytes = Math.round(Number(values.gb) * 1e9)
const d = Number(values.d)

/** Writes HOG-like rows (`pic row col` then d values `0.dddd`) byte by byte into 4 MB blocks: generation must not dominate. */
async function generate(file: string): Promise<{ rows: number; bytes: number }> {
  const rng = createRng(Number(values.seed))
  const raw = createWriteStream(file)
  const gzip = values.gzip ? createGzip({ level: 1 }) : null
  if (gzip) gzip.pipe(raw)
  const out = gzip ?? raw
  const block = Buffer.alloc(4 << 20)
  const maxRow = 40 + d * 7
  let pos = 0
  let rows = 0
  let bytes = 0
  while (bytes < targetBytes) {
    const head = `${rows >> 8} ${(rows >> 4) & 15} ${rows & 15}`
    pos += block.write(head, pos, 'latin1')
    for (let j = 0; j < d; j++) {
      // HOG cells are small non-negative values, often zero.
      const v = rng.int(10000)
      block[pos++] = 32
      if (v < 1500) {
        block[pos++] = 48
        continue
      }
      block[pos++] = 48
      block[pos++] = 46
      block[pos++] = 48 + ((v / 1000) | 0)
      block[pos++] = 48 + (((v / 100) | 0) % 10)
      block[pos++] = 48 + (((v / 10) | 0) % 10)
      block[pos++] = 48 + (v % 10)
    }
    block[pos++] = 10
    rows++
    if (pos + maxRow > block.length) {
      bytes += pos
      if (!out.write(Buffer.from(block.subarray(0, pos)))) await once(out, 'drain')
      pos = 0
    }
  }
  bytes += pos
  out.end(Buffer.from(block.subarray(0, pos)))
  await once(raw, 'finish')
  return { rows, bytes }
}

const dir = await mkdtemp(join(tmpdir(), 'codebook-convert-bench-'))
try {
  const src = join(dir, values.gzip ? 'hog.txt.gz' : 'hog.txt')
  const t0 = performance.now()
  const gen = await generate(src)
  const genSeconds = (performance.now() - t0) / 1000
  const fileBytes = (await stat(src)).size
  console.log(
    `generated ${gen.rows} rows × ${d} (${(gen.bytes / 1e6).toFixed(0)} MB text, ${(fileBytes / 1e6).toFixed(0)} MB on disk) in ${genSeconds.toFixed(1)} s`,
  )
  const t1 = performance.now()
  const cpu0 = process.cpuUsage()
  const { stats } = await convertToNpy(src, join(dir, 'out.npy'))
  const seconds = (performance.now() - t1) / 1000
  const cpu = process.cpuUsage(cpu0)
  // CPU time of the process (user + system): steadier than wall time on a shared machine.
  const cpuSeconds = (cpu.user + cpu.system) / 1e6
  const outBytes = (await stat(join(dir, 'out.npy'))).size
  console.log(
    `converted ${stats.n} rows × ${stats.d} in ${seconds.toFixed(1)} s: ${(gen.bytes / 1e6 / seconds).toFixed(1)} MB/s of text` +
      `${values.gzip ? ` (${(fileBytes / 1e6 / seconds).toFixed(1)} MB/s compressed)` : ''}, ${(outBytes / 1e6).toFixed(0)} MB .npy; ${cpuSeconds.toFixed(1)} CPU s (${(gen.bytes / 1e6 / cpuSeconds).toFixed(1)} MB per CPU second)`,
  )
  console.log(
    `peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB (whole process, generation included)`,
  )
} finally {
  if (!values.keep) await rm(dir, { recursive: true, force: true })
}
