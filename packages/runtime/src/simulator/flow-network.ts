import { UsageError } from '../errors.ts'
import { EventHeap } from '../reductions/study/event-heap.ts'

/** A directed link: `bandwidth` in bytes per second, `latency` (α) in seconds. */
export interface SimLink {
  name: string
  bandwidth: number
  latency: number
}

/**
 * One message: it starts when every transfer in `after` has been delivered and every transfer
 * in `afterSent` has left its sender, spends `startup` (the per-message software cost α, paid
 * in series by its sender), then moves `bytes` over every link of `path` at the rate max-min
 * fair sharing gives it (at most `maxRate`, e.g. a TCP window per round trip), and is delivered
 * the latency of its path after its last byte left. Latency is propagation: a sender streaming
 * chunks back to back (`afterSent`) pays it once per hop, not once per chunk.
 */
export interface SimTransfer {
  path: readonly number[]
  bytes: number
  after?: readonly number[]
  /** Transfers that must have finished sending (not necessarily arrived): a stream's previous chunk. */
  afterSent?: readonly number[]
  startup?: number
  /** Upper bound on this flow's rate, bytes/s (a window limit); unbounded when absent. */
  maxRate?: number
  /** One-way latency of the whole path, seconds, instead of the sum of its links' (a per-site-pair delay). */
  latency?: number
}

/** What a simulation found. */
export interface SimResult {
  /** Time the last transfer was delivered (0 for no transfers). */
  makespan: number
  /** finish[i]: time transfer i was delivered. */
  finish: Float64Array
  /** bytes carried per link, by link index. */
  linkBytes: Float64Array
  /** Number of rate recomputations (events), for cost reporting. */
  events: number
}

// Flows finishing within this relative slack of the earliest one finish together: symmetric
// schedules (a pipelined chain) then advance a whole wave per event instead of one flow.
const SIMULTANEOUS = 1e-9

/**
 * Max-min fair rates by progressive filling: repeatedly take the link whose remaining capacity
 * per unfrozen flow is smallest (or the smallest per-flow cap, if lower), give each of its flows
 * that share, and remove them. `caps[f]` bounds flow f (a window limit); absent = unbounded.
 */
export function maxMinRates(
  links: readonly SimLink[],
  paths: readonly (readonly number[])[],
  caps?: ArrayLike<number>,
): Float64Array {
  return rateSolver(links)(paths, caps)
}

/**
 * {@link maxMinRates} over fixed `links`, with its scratch arrays allocated once: a simulation
 * solves the rates at every event, and the allocations were most of its time.
 */
function rateSolver(
  links: readonly SimLink[],
): (paths: readonly (readonly number[])[], caps?: ArrayLike<number>) => Float64Array {
  const capacity = new Float64Array(links.length)
  const count = new Int32Array(links.length)
  return (paths, caps) => {
    const rates = new Float64Array(paths.length)
    // Only the links some flow crosses take part.
    const used: number[] = []
    for (const path of paths)
      for (const l of path)
        if (count[l]++ === 0) {
          used.push(l)
          capacity[l] = links[l]!.bandwidth
        }
    try {
      // Fast path (a pipeline's hops): no link carries two flows, so each flow gets its slowest link.
      if (used.every((l) => count[l] === 1)) {
        for (let f = 0; f < paths.length; f++) {
          let rate = caps?.[f] ?? Number.POSITIVE_INFINITY
          for (const l of paths[f]!) rate = Math.min(rate, links[l]!.bandwidth)
          rates[f] = rate
        }
        return rates
      }
      const flowsOn = new Map<number, number[]>(used.map((l) => [l, []]))
      paths.forEach((path, f) => {
        for (const l of path) flowsOn.get(l)!.push(f)
      })
      const frozen = new Uint8Array(paths.length)
      let left = 0
      // A flow over no link (sender = receiver) is not limited by the network.
      paths.forEach((p, f) => {
        if (p.length === 0) rates[f] = Number.POSITIVE_INFINITY
        else left++
      })
      const freeze = (f: number, rate: number) => {
        frozen[f] = 1
        rates[f] = rate
        left--
        for (const m of paths[f]!) {
          capacity[m] -= rate
          count[m]--
        }
      }
      while (left > 0) {
        let share = Number.POSITIVE_INFINITY
        for (const l of used) if (count[l] > 0) share = Math.min(share, capacity[l] / count[l])
        let capMin = Number.POSITIVE_INFINITY
        if (caps)
          paths.forEach((p, f) => {
            if (!frozen[f] && p.length > 0) capMin = Math.min(capMin, caps[f] ?? Number.POSITIVE_INFINITY)
          })
        if (capMin < share) {
          // A window-limited flow takes less than its fair share; the rest goes to the others.
          paths.forEach((p, f) => {
            if (!frozen[f] && p.length > 0 && (caps![f] ?? Number.POSITIVE_INFINITY) <= capMin * (1 + 1e-12))
              freeze(f, caps![f]!)
          })
          continue
        }
        for (const l of used) {
          if (count[l] === 0 || capacity[l] / count[l] > share * (1 + 1e-12)) continue
          for (const f of flowsOn.get(l)!) if (!frozen[f]) freeze(f, share)
        }
      }
      return rates
    } finally {
      for (const l of used) count[l] = 0
    }
  }
}

/**
 * Simulates `transfers` over `links` at flow level: α-β costs per link, concurrent flows
 * sharing every link max-min fairly, dependencies between transfers (so chunked pipelines and
 * tree schedules are expressed as data). Event-driven: rates change only when a flow starts or
 * ends.
 */
export function simulateTransfers(links: readonly SimLink[], transfers: readonly SimTransfer[]): SimResult {
  const n = transfers.length
  const finish = new Float64Array(n).fill(Number.NaN)
  const linkBytes = new Float64Array(links.length)
  const waitingOn = new Int32Array(n)
  // Dependents released when a transfer is delivered, and when it has left its sender.
  const onDelivered: number[][] = Array.from({ length: n }, () => [])
  const onSent: number[][] = Array.from({ length: n }, () => [])
  transfers.forEach((t, i) => {
    for (const l of t.path)
      if (l < 0 || l >= links.length)
        throw new UsageError('SIM_BAD_LINK', `transfer ${i} uses unknown link ${l}`)
    if (!(t.bytes >= 0)) throw new UsageError('SIM_BAD_TRANSFER', `transfer ${i} has ${t.bytes} bytes`)
    const depend = (a: number, list: number[][]) => {
      if (!Number.isInteger(a) || a < 0 || a >= n || a === i)
        throw new UsageError('SIM_BAD_DEPENDENCY', `transfer ${i} waits for ${a}`)
      waitingOn[i]++
      list[a]!.push(i)
    }
    for (const a of t.after ?? []) depend(a, onDelivered)
    for (const a of t.afterSent ?? []) depend(a, onSent)
    for (const l of t.path) linkBytes[l] += t.bytes
  })

  const remaining = Float64Array.from(transfers, (t) => t.bytes)
  // Timed events, rank = 2·id (a transfer starts moving bytes after its start-up) or 2·id + 1
  // (it arrives, its latency after its last byte left). At most one of each per transfer.
  const timers = new EventHeap(2 * n)
  const active = new Set<number>()
  let now = 0
  let done = 0
  let events = 0
  const latencyOf = (t: SimTransfer) => t.latency ?? t.path.reduce((sum, l) => sum + links[l]!.latency, 0)
  const release = (id: number) => timers.push(now + (transfers[id]!.startup ?? 0), 2 * id)
  const satisfy = (ids: readonly number[]) => {
    for (const dep of ids) if (--waitingOn[dep] === 0) release(dep)
  }
  for (let i = 0; i < n; i++) if (waitingOn[i] === 0) release(i)

  const capped = transfers.some((t) => t.maxRate !== undefined)
  const solveRates = rateSolver(links)
  // Rates change only when the set of moving flows does: deliveries alone reuse them.
  let ids: number[] = []
  let rates: Float64Array = new Float64Array(0)
  let changed = true
  while (done < n) {
    // Fire every timer that is due: starts join the active flows, deliveries release dependents.
    while (timers.length > 0 && timers.peekTime() <= now) {
      const rank = timers.pop()
      const id = rank >> 1
      if ((rank & 1) === 0) {
        active.add(id)
        changed = true
      } else {
        finish[id] = now
        done++
        satisfy(onDelivered[id]!)
      }
    }
    if (done === n) break
    if (changed) {
      ids = [...active]
      rates = solveRates(
        ids.map((id) => transfers[id]!.path),
        capped ? ids.map((id) => transfers[id]!.maxRate ?? Number.POSITIVE_INFINITY) : undefined,
      )
      changed = false
    }
    let dt = timers.length > 0 ? timers.peekTime() - now : Number.POSITIVE_INFINITY
    ids.forEach((id, j) => {
      dt = Math.min(dt, remaining[id]! / rates[j]!)
    })
    if (!Number.isFinite(dt))
      throw new UsageError(
        'SIM_DEADLOCK',
        `${n - done} transfers can never start: their dependencies form a cycle`,
      )
    events++
    now += dt
    ids.forEach((id, j) => {
      // A flow over no link has an infinite rate: it is done at once (∞ · 0 would be NaN).
      remaining[id] = Number.isFinite(rates[j]!) ? remaining[id]! - rates[j]! * dt : 0
      const t = transfers[id]!
      if (remaining[id]! <= SIMULTANEOUS * Math.max(1, t.bytes)) {
        active.delete(id)
        changed = true
        timers.push(now + latencyOf(t), 2 * id + 1)
        satisfy(onSent[id]!)
      }
    })
  }
  let makespan = 0
  for (const f of finish) makespan = Math.max(makespan, f)
  return { makespan, finish, linkBytes, events }
}
