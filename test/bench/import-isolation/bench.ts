/**
 * How much a dataset import costs the server's event loop: a real server (in-process, PGlite)
 * imports a large HOG text through `POST /api/datasets` (the parse runs in its import child), then
 * the same file is imported by the runtime's `importToStore` in this process (what the server did
 * before issue 17), then a hostile gzip (one line that never ends) goes through the API. For each:
 * seconds, event-loop delay (p50 / p99 / max, `monitorEventLoopDelay`) and the slowest
 * `GET /api/health` answer sampled every 20 ms. See README.md.
 */
import { openAsBlob } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { gzipSync } from 'node:zlib'
import { importToStore } from '@codebook/runtime/formats'
import { writeHogFixture } from '../../support/hog-file.ts'
import { startTestServer, type TestServer } from '../../support/server.ts'

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '400000' },
    d: { type: 'string', default: '64' },
    /** GiB of the hostile gzip's one line. */
    endless: { type: 'string', default: '1.5' },
  },
})

interface Figures {
  what: string
  seconds: number
  loop: { p50: number; p99: number; max: number }
  healthMaxMs: number | null
  outcome: string
}

/** Runs `work` while measuring the event loop and (with a server) sampling /api/health. */
async function measure(
  what: string,
  server: TestServer | null,
  work: () => Promise<string>,
): Promise<Figures> {
  const loop = monitorEventLoopDelay({ resolution: 10 })
  let healthMax = 0
  let running = true
  const sampler = (async () => {
    while (server && running) {
      const t0 = performance.now()
      await (await fetch(`${server.url}/api/health`)).arrayBuffer()
      healthMax = Math.max(healthMax, performance.now() - t0)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  })()
  loop.enable()
  const t0 = performance.now()
  const outcome = await work()
  const seconds = (performance.now() - t0) / 1000
  loop.disable()
  running = false
  await sampler
  const ms = (ns: number) => ns / 1e6
  return {
    what,
    seconds,
    loop: { p50: ms(loop.percentile(50)), p99: ms(loop.percentile(99)), max: ms(loop.max) },
    healthMaxMs: server ? healthMax : null,
    outcome,
  }
}

/** Uploads `file` (answered 202 once it is on disk and the import has started); resolves with the dataset id. */
async function upload(server: TestServer, name: string, file: string): Promise<string> {
  const res = await fetch(`${server.url}/api/datasets?name=${name}&format=hog-text`, {
    method: 'POST',
    headers: server.authHeaders,
    body: await openAsBlob(file),
  })
  return ((await res.json()) as { id: string }).id
}

/** Waits for the import of dataset `id` to end. */
async function settle(server: TestServer, id: string): Promise<string> {
  const final = await server.app.datasets.settled(id)
  return final.status === 'ready' ? `ready, n = ${final.n}` : `${final.status} ${final.error?.code}`
}

const dir = await mkdtemp(join(tmpdir(), 'codebook-import-bench-'))
const server = await startTestServer({ LOG_LEVEL: 'warn' })
try {
  const fixture = await writeHogFixture(dir, {
    filename: 'big.hog',
    n: Number(args.rows),
    d: Number(args.d),
    seed: 3,
    keep: 0,
  })
  const member = gzipSync(Buffer.alloc(16 * 1024 ** 2, '1 '), { level: 9 })
  const endless = join(dir, 'endless.hog.gz')
  await writeFile(
    endless,
    Buffer.concat(Array.from({ length: Math.round(Number(args.endless) * 64) }, () => member)),
  )
  console.log(`HOG text: ${fixture.n} × ${fixture.d}, ${(fixture.bytes / 1024 ** 2).toFixed(0)} MB`)

  let big = ''
  let hostile = ''
  const results = [
    await measure('upload (streamed to disk)', server, async () => {
      big = await upload(server, 'big', fixture.path)
      return 'answered 202'
    }),
    await measure('import in the child (now)', server, () => settle(server, big)),
    await measure('importToStore in-process (before)', server, async () => {
      const stats = await importToStore(fixture.path, join(dir, 'in-process'), { format: 'hog-text' })
      return `ready, n = ${stats.n}`
    }),
    await measure('hostile gzip: upload', server, async () => {
      hostile = await upload(server, 'endless', endless)
      return 'answered 202'
    }),
    await measure('hostile gzip: import in the child', server, () => settle(server, hostile)),
  ]
  for (const r of results)
    console.log(
      `${r.what.padEnd(36)} ${r.seconds.toFixed(1).padStart(5)} s  loop p50 ${r.loop.p50.toFixed(1)} / p99 ${r.loop.p99.toFixed(1)} / max ${r.loop.max.toFixed(0)} ms  health max ${r.healthMaxMs?.toFixed(0) ?? '-'} ms  → ${r.outcome}`,
    )
} finally {
  await server.close()
  await rm(dir, { recursive: true, force: true })
}
