/**
 * Run-page smoothness under load: a real server (in-process, PGlite), a synthetic `running` run,
 * a real Chromium on `/runs/:id`, and N iteration reports of W workers streamed live at R per
 * second (each with a `progress` event, a `log` line every 25). The page records its own frame
 * times (requestAnimationFrame) and long tasks (PerformanceObserver), during the stream and
 * while a reload replays the whole backlog. See README.md for the command.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { loadConfig, startServer } from '@codebook/server'
import { launchBrowser } from '../../support/browser.ts'
import { repoRoot } from '../../support/server.ts'
import { insertSyntheticRun, iteratingProgress, logLine, syntheticIteration } from './synthetic-run.ts'

const { values: args } = parseArgs({
  options: {
    iterations: { type: 'string', default: '1000' },
    workers: { type: 'string', default: '64' },
    rate: { type: 'string', default: '50' },
    web: { type: 'string', default: join(repoRoot, 'apps/web/dist') },
    label: { type: 'string', default: '' },
    profile: { type: 'boolean', default: false },
    trace: { type: 'boolean', default: false },
  },
})
const N = Number(args.iterations)
const W = Number(args.workers)
const RATE = Number(args.rate)

/** Injected before the app: frame deltas and long tasks while `recording`. */
const RECORDER = `
(() => {
  const f = { deltas: [], longTasks: [], recording: false, last: 0 }
  window.__bench = f
  const tick = (t) => {
    if (f.recording && f.last > 0) f.deltas.push(t - f.last)
    f.last = t
    requestAnimationFrame(tick)
  }
  requestAnimationFrame(tick)
  new PerformanceObserver((list) => {
    if (!f.recording) return
    for (const e of list.getEntries()) f.longTasks.push(e.duration)
  }).observe({ type: 'longtask' })
})()
`

/** Main-thread time of the page's renderer (CDP Performance domain), seconds, by kind. */
const METRICS = ['TaskDuration', 'ScriptDuration', 'LayoutDuration', 'RecalcStyleDuration'] as const
type Metrics = Record<(typeof METRICS)[number], number>

async function metrics(cdp: import('playwright-core').CDPSession): Promise<Metrics> {
  const { metrics: list } = (await cdp.send('Performance.getMetrics')) as {
    metrics: { name: string; value: number }[]
  }
  const out = {} as Metrics
  for (const m of METRICS) out[m] = list.find((x) => x.name === m)?.value ?? Number.NaN
  return out
}

/** CPU seconds used so far by Chromium's renderer processes (true CPU time, not wall time). */
async function rendererCpu(cdp: import('playwright-core').CDPSession): Promise<number> {
  const { processInfo } = (await cdp.send('SystemInfo.getProcessInfo')) as {
    processInfo: { type: string; id: number; cpuTime: number }[]
  }
  return processInfo.filter((p) => p.type === 'renderer').reduce((t, p) => t + p.cpuTime, 0)
}

function busy(a: Metrics, b: Metrics) {
  return {
    taskS: Number((b.TaskDuration - a.TaskDuration).toFixed(2)),
    scriptS: Number((b.ScriptDuration - a.ScriptDuration).toFixed(2)),
    layoutS: Number(
      (b.LayoutDuration - a.LayoutDuration + b.RecalcStyleDuration - a.RecalcStyleDuration).toFixed(2),
    ),
  }
}

/** Top self-time functions of a CPU profile. */
function topSelf(
  profile: {
    nodes: {
      id: number
      callFrame: { functionName: string; url: string; lineNumber: number }
      hitCount?: number
    }[]
    samples: number[]
    timeDeltas: number[]
  },
  n: number,
) {
  const byNode = new Map<number, number>()
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!
    byNode.set(id, (byNode.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0))
  }
  const byFn = new Map<string, number>()
  for (const node of profile.nodes) {
    const us = byNode.get(node.id) ?? 0
    const f = node.callFrame
    const key = `${f.functionName || '(anon)'} ${f.url.split('/').pop()}:${f.lineNumber}`
    byFn.set(key, (byFn.get(key) ?? 0) + us)
  }
  return [...byFn.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([fn, us]) => ({ fn, ms: Math.round(us / 1000) }))
}

interface Recorded {
  deltas: number[]
  longTasks: number[]
  heap: number | null
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}

function summarize(name: string, r: Recorded, seconds: number) {
  const d = [...r.deltas].sort((a, b) => a - b)
  const lt = r.longTasks
  return {
    phase: name,
    seconds: Number(seconds.toFixed(2)),
    frames: d.length,
    fps: Number((d.length / seconds).toFixed(1)),
    p50: Number(quantile(d, 0.5).toFixed(1)),
    p95: Number(quantile(d, 0.95).toFixed(1)),
    p99: Number(quantile(d, 0.99).toFixed(1)),
    max: Number((d.at(-1) ?? Number.NaN).toFixed(1)),
    over50ms: d.filter((x) => x > 50).length,
    longTasks: lt.length,
    longTaskMs: Math.round(lt.reduce((t, x) => t + x, 0)),
    longestTask: Math.round(Math.max(0, ...lt)),
    heapMB: r.heap === null ? null : Number((r.heap / 2 ** 20).toFixed(1)),
  }
}

const home = await mkdtemp(join(tmpdir(), 'codebook-bench-page-'))
const server = await startServer(
  loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    CODEBOOK_HOME: home,
    CODEBOOK_SEED_DEMO: 'false',
    CODEBOOK_WEB_DIR: args.web,
    LOG_LEVEL: 'warn',
  }),
)
const browser = await launchBrowser({ baseURL: server.url })
try {
  const { page } = browser
  await page.addInitScript(RECORDER)
  const synthetic = await insertSyntheticRun(server.app, { maxIterations: N, workers: W })
  const runId = synthetic.run.id
  // Reports are built before the clock starts so the generator's cost is not in the stream's pace.
  const reports = Array.from({ length: N }, (_, i) => syntheticIteration(i + 1, W, 7))
  const jsonKB = JSON.stringify(reports[0]).length / 1024

  await page.goto(`/runs/${runId}`)
  await page.getByTestId('run-iteration').waitFor()
  // The page has joined the run once the server counts a socket watching it.
  for (let t = 0; server.app.jobEvents.watchers('run', runId) === 0; t++) {
    if (t > 200) throw new Error('the page never joined the run')
    await new Promise((r) => setTimeout(r, 50))
  }
  const cdp = await browser.context.newCDPSession(page)
  await cdp.send('Performance.enable')
  if (args.profile) {
    await cdp.send('Profiler.enable')
    await cdp.send('Profiler.start')
  }
  const browserCdp = await browser.browser.newBrowserCDPSession()
  const c0 = await rendererCpu(browserCdp)
  const m0 = await metrics(cdp)
  const traceEvents: { name: string; ph: string; dur?: number; tid: number; pid: number }[] = []
  if (args.trace) {
    browserCdp.on('Tracing.dataCollected', (e) => {
      traceEvents.push(...(e.value as unknown as typeof traceEvents))
    })
    await browserCdp.send('Tracing.start', {
      categories: 'devtools.timeline,disabled-by-default-devtools.timeline,v8,blink,cc,gpu,toplevel',
    })
  }
  await page.evaluate(() => {
    ;(window as unknown as { __bench: { recording: boolean } }).__bench.recording = true
  })

  const t0 = performance.now()
  let meanMs = 0
  for (let i = 0; i < N; i++) {
    const due = t0 + (i * 1000) / RATE
    const wait = due - performance.now()
    if (wait > 0) await new Promise((r) => setTimeout(r, wait))
    const report = reports[i]!
    meanMs += (Object.values(report.stages).reduce((t, s) => t + s.ms, 0) - meanMs) / (i + 1)
    synthetic.stream('iteration', report)
    synthetic.stream('progress', iteratingProgress(i + 1, N, meanMs))
    if ((i + 1) % 25 === 0)
      synthetic.stream('log', logLine(i % 100 === 99 ? 'warn' : 'info', `iteration ${i + 1} done`))
  }
  const streamed = performance.now()
  await synthetic.settled()
  await page.getByText(`Iteration ${N} / ${N}`).waitFor({ timeout: 120_000 })
  const shown = performance.now()
  const live = await collect(page)
  const liveSummary = {
    ...summarize('live stream', live, (shown - t0) / 1000),
    ...busy(m0, await metrics(cdp)),
    cpuS: Number(((await rendererCpu(browserCdp)) - c0).toFixed(2)),
  }
  if (args.profile) {
    const { profile } = (await cdp.send('Profiler.stop')) as { profile: Parameters<typeof topSelf>[0] }
    console.table(topSelf(profile, 25))
  }
  if (args.trace) {
    const complete = new Promise((r) => browserCdp.once('Tracing.tracingComplete', r))
    await browserCdp.send('Tracing.end')
    await complete
    // Total duration by thread and event name (nested events overlap: read it as "where", not a sum).
    const threads = new Map<string, string>()
    for (const e of traceEvents as ((typeof traceEvents)[number] & { args?: { name?: string } })[])
      if (e.ph === 'M' && e.name === 'thread_name') threads.set(`${e.pid}:${e.tid}`, e.args?.name ?? '')
    const total = new Map<string, number>()
    for (const e of traceEvents) {
      if (e.ph !== 'X' || e.dur === undefined) continue
      const key = `${threads.get(`${e.pid}:${e.tid}`) ?? e.tid} ${e.name}`
      total.set(key, (total.get(key) ?? 0) + e.dur / 1000)
    }
    console.table(
      [...total.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 40)
        .map(([k, ms]) => ({ event: k, ms: Math.round(ms) })),
    )
    // The longest main-thread tasks and the events inside them (by time containment).
    type X = (typeof traceEvents)[number] & { ts: number; dur: number }
    const main = (traceEvents as X[]).filter(
      (e) => e.ph === 'X' && threads.get(`${e.pid}:${e.tid}`) === 'CrRendererMain',
    )
    const tasks = main.filter((e) => e.name === 'ThreadControllerImpl::RunTask').sort((a, b) => b.dur - a.dur)
    for (const t of tasks.slice(0, 5)) {
      const inner = new Map<string, number>()
      for (const e of main)
        if (e !== t && e.ts >= t.ts && e.ts + e.dur <= t.ts + t.dur)
          inner.set(e.name, Math.max(inner.get(e.name) ?? 0, e.dur / 1000))
      console.log(
        `task ${Math.round(t.dur / 1000)} ms:`,
        [...inner.entries()]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 12)
          .map(([n, ms]) => `${n} ${Math.round(ms)}`)
          .join(' | '),
      )
    }
  }

  // Reload: the whole backlog (N iterations) replays from the database at join.
  // The Performance domain's counters restart with the new document.
  const m1: Metrics = { TaskDuration: 0, ScriptDuration: 0, LayoutDuration: 0, RecalcStyleDuration: 0 }
  const c1 = await rendererCpu(browserCdp)
  if (args.profile) await cdp.send('Profiler.start')
  await page.reload()
  const r0 = performance.now()
  await page.evaluate(() => {
    ;(window as unknown as { __bench: { recording: boolean } }).__bench.recording = true
  })
  await page.getByText(`Iteration ${N} / ${N}`).waitFor({ timeout: 120_000 })
  const r1 = performance.now()
  // Keep recording a second after the last report shows: the throttled charts draw last.
  await new Promise((r) => setTimeout(r, 1000))
  const reload = await collect(page)
  if (args.profile) {
    const { profile } = (await cdp.send('Profiler.stop')) as { profile: Parameters<typeof topSelf>[0] }
    console.table(topSelf(profile, 25))
  }
  const reloadSummary = {
    ...summarize('reload (backlog)', reload, (performance.now() - r0) / 1000),
    ...busy(m1, await metrics(cdp)),
    cpuS: Number(((await rendererCpu(browserCdp)) - c1).toFixed(2)),
  }
  await browser.screenshot(`bench-run-page-${N}x${W}${args.label ? `-${args.label}` : ''}`)

  console.log(
    JSON.stringify(
      {
        label: args.label,
        iterations: N,
        workers: W,
        targetRate: RATE,
        achievedRate: Number((N / ((streamed - t0) / 1000)).toFixed(1)),
        reportKB: Number(jsonKB.toFixed(1)),
        lastShownAfterStreamMs: Math.round(shown - streamed),
        reloadToAllShownMs: Math.round(r1 - r0),
      },
      null,
      2,
    ),
  )
  console.table([liveSummary, reloadSummary])
} finally {
  await browser.close()
  await server.close()
  await rm(home, { recursive: true, force: true })
}

async function collect(page: import('playwright-core').Page): Promise<Recorded> {
  return page.evaluate(() => {
    const f = (
      window as unknown as { __bench: { deltas: number[]; longTasks: number[]; recording: boolean } }
    ).__bench
    f.recording = false
    const mem = (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory
    return { deltas: f.deltas, longTasks: f.longTasks, heap: mem ? mem.usedJSHeapSize : null }
  })
}
