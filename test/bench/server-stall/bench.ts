/**
 * Event-loop stall benchmark: a real server (`node apps/server/dist/main.js`, its own process, a
 * temp home) while it imports a big gzipped HOG text upload and while a run initialises k = 1,024
 * centroids over 20,000 × 512 vectors; this process GETs `/api/health` every ~10 ms the whole
 * time and prints p50 / p99 / max per phase. Not a test: figures depend on the machine's load
 * (it is printed with them). See README.md.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { createServer } from 'node:net'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { parseArgs } from 'node:util'
import { createGzip } from 'node:zlib'
import { createRng } from '@codebook/runtime/kmeans'
import { Dataset, IterationReport, JobEventList, Run, RunLogData } from '@codebook/shared'
import { repoRoot } from '../../support/server.ts'

const { values: args } = parseArgs({
  options: {
    n: { type: 'string', default: '20000' },
    d: { type: 'string', default: '512' },
    k: { type: 'string', default: '1024' },
    init: { type: 'string', default: 'kmeans++' },
    kernel: { type: 'string', default: 'onnx' },
    /** Rows of the generated HOG text upload (d = 128, gzipped); 0 skips the import phase. */
    'hog-rows': { type: 'string', default: '200000' },
    'interval-ms': { type: 'string', default: '10' },
    /** An existing n × d float32 `.npy` to upload instead of generating one (its shape wins over --n, --d). */
    data: { type: 'string' },
    workers: { type: 'string', default: '1' },
    iterations: { type: 'string', default: '1' },
    /** More run parameters, as JSON (merged into the `POST /api/runs` body). */
    run: { type: 'string', default: '{}' },
  },
})
const n = Number(args.n)
const d = Number(args.d)
const k = Number(args.k)
const token = randomBytes(16).toString('hex')
const auth = { authorization: `Bearer ${token}` }

/** One health request: when it was sent (ms since start) and how long it took. */
interface Sample {
  at: number
  ms: number
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })
}

async function startServerProcess(home: string): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort()
  const child = spawn(process.execPath, [join(repoRoot, 'apps/server/dist/main.js')], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      CODEBOOK_HOME: home,
      CODEBOOK_API_TOKEN: token,
      CODEBOOK_SEED_DEMO: 'false',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`)
    try {
      if ((await fetch(`${url}/api/health`)).ok) return { url, child }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error('server did not answer /api/health within 30 s')
}

/** Resident set of process `pid` now, MiB (`VmRSS` of /proc/PID/status). */
async function rssMib(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '')
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN)
  return Math.round(kb / 1024)
}

/**
 * Samples GET /api/health back to back, `interval` ms apart, until `stop()`; with `pid`, that
 * process's resident set at the same moments.
 */
function sampleHealth(url: string, interval: number, t0: number, pid?: number) {
  const samples: Sample[] = []
  const rss: number[] = []
  let stopped = false
  const loop = (async () => {
    while (!stopped) {
      const started = performance.now()
      const res = await fetch(`${url}/api/health`)
      await res.arrayBuffer()
      samples.push({ at: started - t0, ms: performance.now() - started })
      if (pid !== undefined) rss.push(await rssMib(pid))
      await new Promise((r) => setTimeout(r, interval))
    }
  })()
  return {
    samples,
    rss,
    stop: async () => {
      stopped = true
      await loop
    },
  }
}

/** Min / median / max of RSS samples, MiB. */
function rssSummary(rss: number[]) {
  const s = [...rss].sort((a, b) => a - b)
  return { minMib: s[0], medianMib: s[Math.floor(s.length / 2)], maxMib: s.at(-1) }
}

function summary(samples: Sample[]) {
  const ms = samples.map((s) => s.ms).sort((a, b) => a - b)
  const q = (p: number) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))] ?? Number.NaN
  const r = (v: number) => Math.round(v * 10) / 10
  return { requests: ms.length, p50: r(q(0.5)), p99: r(q(0.99)), max: r(ms.at(-1) ?? Number.NaN) }
}

/** Seeded n × d float32 .npy (points around 1,000 blob centres), written in row blocks. */
async function writeNpyFile(path: string): Promise<void> {
  const header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${n}, ${d}), }`
  const padded = header.padEnd(128 - 10 - 1, ' ')
  const head = Buffer.alloc(10)
  head.write('\x93NUMPY', 0, 'latin1')
  head.writeUInt8(1, 6)
  head.writeUInt8(0, 7)
  head.writeUInt16LE(padded.length + 1, 8)
  const rng = createRng(1)
  const centres = Float32Array.from({ length: 1000 * d }, () => (2 * rng.next() - 1) * 3)
  async function* rows() {
    yield Buffer.concat([head, Buffer.from(`${padded}\n`, 'latin1')])
    for (let start = 0; start < n; start += 1000) {
      const count = Math.min(1000, n - start)
      const block = new Float32Array(count * d)
      for (let i = 0; i < count; i++) {
        const c = rng.int(1000)
        for (let t = 0; t < d; t++) block[i * d + t] = centres[c * d + t]! + rng.normal()
      }
      yield Buffer.from(block.buffer)
    }
  }
  await pipeline(Readable.from(rows()), createWriteStream(path))
}

/** Seeded HOG text (`pictureId rowId colId f1 … f128`), gzipped. */
async function writeHogGz(path: string, rowsTotal: number): Promise<void> {
  const rng = createRng(2)
  async function* lines() {
    for (let start = 0; start < rowsTotal; start += 1000) {
      const out: string[] = []
      for (let r = start; r < Math.min(rowsTotal, start + 1000); r++) {
        const values = Array.from({ length: 128 }, () => (rng.int(1000) / 1000).toFixed(3))
        out.push(`${Math.floor(r / 256)} ${Math.floor((r % 256) / 16)} ${r % 16} ${values.join(' ')}\n`)
      }
      yield out.join('')
    }
  }
  await pipeline(Readable.from(lines()), createGzip(), createWriteStream(path))
}

async function upload(url: string, path: string, name: string, format: string): Promise<string> {
  const res = await fetch(`${url}/api/datasets?name=${name}&format=${format}&wait=true`, {
    method: 'POST',
    headers: {
      ...auth,
      'content-type': 'application/octet-stream',
      'content-length': String((await stat(path)).size),
    },
    body: Readable.toWeb(createReadStream(path)) as ReadableStream,
    duplex: 'half',
  } as RequestInit)
  if (res.status !== 201) throw new Error(`upload ${name}: ${res.status} ${await res.text()}`)
  return Dataset.parse(await res.json()).id
}

async function runLogLines(url: string, runId: string): Promise<string[]> {
  const res = await fetch(`${url}/api/runs/${runId}/events`)
  return JobEventList.parse(await res.json())
    .events.filter((e) => e.type === 'log')
    .map((e) => RunLogData.parse(e.data).message)
}

const dir = await mkdtemp(join(tmpdir(), 'codebook-stall-'))
const home = join(dir, 'home')
const { url, child } = await startServerProcess(home)
const report: Record<string, unknown> = {
  command:
    `node --conditions=@codebook/source --import tsx bench/server-stall/bench.ts ${process.argv.slice(2).join(' ')}`.trim(),
  loadBefore: loadavg().map((l) => Math.round(l * 100) / 100),
}
try {
  const vectors = args.data ?? join(dir, 'vectors.npy')
  if (args.data === undefined) await writeNpyFile(vectors)
  const datasetId = await upload(url, vectors, 'vectors', 'npy')
  const hogRows = Number(args['hog-rows'])
  const hog = join(dir, 'hog.txt.gz')
  if (hogRows > 0) await writeHogGz(hog, hogRows)

  // Quiet baseline: nothing running.
  const t0 = performance.now()
  let sampler = sampleHealth(url, Number(args['interval-ms']), t0, child.pid)
  await new Promise((r) => setTimeout(r, 3000))
  await sampler.stop()
  report.idle = { ...summary(sampler.samples), serverRss: rssSummary(sampler.rss) }

  if (hogRows > 0) {
    sampler = sampleHealth(url, Number(args['interval-ms']), t0)
    const started = performance.now()
    await upload(url, hog, 'hog', 'hog-text')
    await sampler.stop()
    report.import = {
      rows: hogRows,
      gzBytes: (await stat(hog)).size,
      seconds: Math.round(performance.now() - started) / 1000,
      ...summary(sampler.samples),
    }
  }

  sampler = sampleHealth(url, Number(args['interval-ms']), t0, child.pid)
  const started = performance.now()
  const created = await fetch(`${url}/api/runs`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({
      datasetId,
      k,
      init: args.init,
      kernel: args.kernel,
      workers: Number(args.workers),
      maxIterations: Number(args.iterations),
      tol: 0,
      ...JSON.parse(args.run),
    }),
  })
  if (created.status !== 201) throw new Error(`run: ${created.status} ${await created.text()}`)
  const run = Run.parse(await created.json())
  let initLine: string | undefined
  let initEnd = Number.NaN
  let final: Run
  for (;;) {
    const state = Run.parse(await (await fetch(`${url}/api/runs/${run.id}`)).json())
    initLine ??= (await runLogLines(url, run.id)).find((l) => / init of /.test(l))
    if (initLine !== undefined && Number.isNaN(initEnd)) initEnd = performance.now() - t0
    if (['succeeded', 'failed', 'cancelled'].includes(state.status)) {
      if (state.status !== 'succeeded') throw new Error(`run ${state.status}: ${state.error?.message}`)
      final = state
      break
    }
    // Polled seldom during long runs: this process's own requests are part of the load it measures.
    await new Promise((r) => setTimeout(r, 1000))
  }
  await sampler.stop()
  const runStart = started - t0
  report.init = {
    n,
    d,
    k,
    method: args.init,
    log: initLine,
    ...summary(sampler.samples.filter((s) => s.at >= runStart && s.at <= initEnd)),
  }
  const reports = JobEventList.parse(
    await (await fetch(`${url}/api/runs/${run.id}/events?limit=1000`)).json(),
  )
    .events.filter((e) => e.type === 'iteration')
    .map((e) => IterationReport.parse(e.data))
  report.wholeRun = {
    seconds: Math.round(performance.now() - started) / 1000,
    iterations: final.iteration,
    inertia: final.inertia,
    // Per iteration: the map stage (the slowest worker's), and an approximate run's sampled recall.
    iterationMapSeconds: reports.map((r) => Math.round(r.stages.map.ms) / 1000),
    recall: reports.map((r) => r.assignmentRecall ?? null),
    ...summary(sampler.samples),
    serverRss: rssSummary(sampler.rss),
    // Where the worst requests fell, in ms since the run was posted (the init ends at initEndMs).
    initEndMs: Math.round(initEnd - runStart),
    slowest: [...sampler.samples]
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 5)
      .map((s) => ({ atMs: Math.round(s.at - runStart), ms: Math.round(s.ms) })),
  }
  report.loadAfter = loadavg().map((l) => Math.round(l * 100) / 100)
  console.log(JSON.stringify(report, null, 2))
} finally {
  child.kill('SIGTERM')
  await new Promise((r) => child.once('exit', r))
  await rm(dir, { recursive: true, force: true })
}
