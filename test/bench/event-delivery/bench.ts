/**
 * Event delivery to many socket.io clients: a real server (in-process, PGlite), C clients (in a
 * child process) joined to one run, N events stored with the job feed's append (seq = max + 1)
 * and published through the server's own publisher (`app.jobEvents`: a cursor per socket, a bounded
 * queue, catch-up from memory or the database). Prints events/s delivered to every
 * client and checks that each client saw exactly seq 1..N+1, in order: no gap, no duplicate.
 *
 * Two phases: `live` (C − LATE clients join first, LATE more join with lastSeq 0 halfway through,
 * taking the backlog-then-live path while events keep coming) and `replay` (C fresh clients join
 * the same run once all its events are stored: the backlog path alone). See README.md.
 */
import { type ChildProcess, fork } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { loadConfig, startServer } from '@codebook/server'
import { SOCKET_IO_PATH } from '@codebook/shared'
import { insertSyntheticRun, syntheticIteration } from '../run-page-load/synthetic-run.ts'
import type { ClientCommand, ClientStats } from './clients.ts'

const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '20000' },
    clients: { type: 'string', default: '50' },
    late: { type: 'string', default: '10' },
    /** Seconds to wait for the last delivery after the last store before reporting what arrived. */
    patience: { type: 'string', default: '60' },
    workers: { type: 'string', default: '2' },
  },
})
const N = Number(args.events)
const C = Number(args.clients)
const LATE = Number(args.late)
const PATH = SOCKET_IO_PATH
const now = () => performance.timeOrigin + performance.now()

type Reply = { type: 'opened' } | { type: 'joined'; at: number } | { type: 'done'; stats: ClientStats[] }

/** Sends a command to the clients' process and resolves with its next reply of `type`. */
function ask<T extends Reply['type']>(child: ChildProcess, command: ClientCommand, type: T) {
  const reply = waitFor(child, type)
  child.send(command)
  return reply
}

function waitFor<T extends Reply['type']>(
  child: ChildProcess,
  type: T,
): Promise<Extract<Reply, { type: T }>> {
  return new Promise((resolve) => {
    const on = (m: Reply) => {
      if (m.type !== type) return
      child.off('message', on)
      resolve(m as Extract<Reply, { type: T }>)
    }
    child.on('message', on)
  })
}

/** The clients' stats once all have the last seq, or as they are after `patience` seconds. */
async function delivered(
  child: ChildProcess,
  done: Promise<{ stats: ClientStats[] }>,
): Promise<ClientStats[]> {
  const timer = new Promise<null>((r) => setTimeout(() => r(null), Number(args.patience) * 1000))
  const first = await Promise.race([done, timer])
  if (first !== null) return first.stats
  return (await ask(child, { cmd: 'status' }, 'done')).stats
}

function verdict(stats: ClientStats[], total: number) {
  return {
    clients: stats.length,
    everyClientGotAll: stats.every((s) => s.gaps === 0 && s.duplicates === 0 && s.received === total),
    gaps: stats.reduce((t, s) => t + s.gaps, 0),
    duplicates: stats.reduce((t, s) => t + s.duplicates, 0),
    minReceived: Math.min(...stats.map((s) => s.received)),
    disconnects: stats.reduce((t, s) => t + s.disconnects, 0),
  }
}

const home = await mkdtemp(join(tmpdir(), 'codebook-bench-events-'))
const server = await startServer(
  loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    CODEBOOK_HOME: home,
    CODEBOOK_SEED_DEMO: 'false',
    LOG_LEVEL: 'warn',
  }),
)
const child = fork(new URL('./clients.ts', import.meta.url))
try {
  const payload = syntheticIteration(1, Number(args.workers), 3)
  const eventBytes = JSON.stringify(payload).length
  const total = N + 1 // the state event (seq 1) and N events

  // Phase 1: live.
  const live = await insertSyntheticRun(server.app, { maxIterations: N })
  await ask(
    child,
    { cmd: 'open', url: server.url, path: PATH, runId: live.run.id, count: C, total },
    'opened',
  )
  await ask(child, { cmd: 'join', from: 0, to: C - LATE }, 'joined')
  const liveDone = waitFor(child, 'done')
  const t0 = now()
  let lateJoined: Promise<unknown> = Promise.resolve()
  for (let i = 1; i <= N; i++) {
    await live.append('iteration', { ...payload, iteration: i })
    // PGlite answers within microtasks, so an unbroken chain of appends would starve the event loop
    // (no socket drain, no ping: every client timed out). A run's events arrive as worker messages,
    // one I/O callback each; yielding here does the same.
    await new Promise(setImmediate)
    if (i === Math.floor(N / 2)) lateJoined = ask(child, { cmd: 'join', from: C - LATE, to: C }, 'joined')
  }
  const stored = now()
  await lateJoined
  const liveStats = await delivered(child, liveDone)
  const tLive = Math.max(...liveStats.map((s) => s.doneAt ?? Number.NaN))
  const liveResult = {
    phase: 'live (store + publish)',
    events: N,
    eventBytes,
    storedPerS: Math.round(N / ((stored - t0) / 1000)),
    deliveredToAllPerS: Math.round(N / ((tLive - t0) / 1000)),
    messagesPerS: Math.round((N * C) / ((tLive - t0) / 1000)),
    lastDeliveryAfterStoreMs: Math.round(tLive - stored),
    ...verdict(liveStats, total),
  }

  // Phase 2: replay. The same run's N + 1 stored events, to C fresh clients joining with lastSeq 0.
  const replay = live
  await ask(
    child,
    { cmd: 'open', url: server.url, path: PATH, runId: replay.run.id, count: C, total },
    'opened',
  )
  const replayDone = waitFor(child, 'done')
  const r0 = now()
  void ask(child, { cmd: 'join', from: 0, to: C }, 'joined')
  const replayStats = await delivered(child, replayDone)
  const tReplay = Math.max(...replayStats.map((s) => s.doneAt ?? Number.NaN))
  const replayResult = {
    phase: 'replay (backlog at join)',
    events: N,
    eventBytes,
    storedPerS: null,
    deliveredToAllPerS: Math.round(N / ((tReplay - r0) / 1000)),
    messagesPerS: Math.round((N * C) / ((tReplay - r0) / 1000)),
    lastDeliveryAfterStoreMs: null,
    ...verdict(replayStats, total),
  }
  console.table([liveResult, replayResult])
  if (!liveResult.everyClientGotAll || !replayResult.everyClientGotAll) process.exitCode = 1
} finally {
  child.send({ cmd: 'close' } satisfies ClientCommand)
  await once(child, 'exit')
  await server.close()
  await rm(home, { recursive: true, force: true })
}
