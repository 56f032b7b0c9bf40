import { UsageError } from '../errors.ts'

/** A directed link: `bandwidth` in bytes per second, `latency` (α) in seconds. */
export interface SimLink {
  name: string
  bandwidth: number
  latency: number
}

/**
 * One message: it starts when every transfer in `after` has finished, waits the latency of
 * its path plus `startup` (the per-message software cost α), then moves `bytes` over every
 * link of `path` at the rate max-min fair sharing gives it.
 */
export interface SimTransfer {
  path: readonly number[]
  bytes: number
  after?: readonly number[]
  startup?: number
}

/** What a simulation found. */
export interface SimResult {
  /** Time the last transfer finished (0 for no transfers). */
  makespan: number
  /** finish[i]: time transfer i finished. */
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
 * per unfrozen flow is smallest, give each of its flows that share, and remove them.
 */
export function maxMinRates(links: readonly SimLink[], paths: readonly (readonly number[])[]): Float64Array {
  const rates = new Float64Array(paths.length)
  const capacity = new Float64Array(links.length)
  const count = new Int32Array(links.length)
  const flowsOn: number[][] = links.map(() => [])
  paths.forEach((path, f) => {
    for (const l of path) {
      count[l]++
      flowsOn[l]!.push(f)
    }
  })
  for (let l = 0; l < links.length; l++) capacity[l] = links[l]!.bandwidth
  const frozen = new Uint8Array(paths.length)
  let left = paths.filter((p) => p.length > 0).length
  // A flow over no link (sender = receiver) is not limited by the network.
  paths.forEach((p, f) => {
    if (p.length === 0) rates[f] = Number.POSITIVE_INFINITY
  })
  while (left > 0) {
    let share = Number.POSITIVE_INFINITY
    for (let l = 0; l < links.length; l++) if (count[l] > 0) share = Math.min(share, capacity[l] / count[l])
    for (let l = 0; l < links.length; l++) {
      if (count[l] === 0 || capacity[l] / count[l] > share * (1 + 1e-12)) continue
      for (const f of flowsOn[l]!) {
        if (frozen[f]) continue
        frozen[f] = 1
        rates[f] = share
        left--
        for (const m of paths[f]!) {
          capacity[m] -= share
          count[m]--
        }
      }
    }
  }
  return rates
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
  const dependents: number[][] = Array.from({ length: n }, () => [])
  transfers.forEach((t, i) => {
    for (const l of t.path)
      if (l < 0 || l >= links.length)
        throw new UsageError('SIM_BAD_LINK', `transfer ${i} uses unknown link ${l}`)
    if (!(t.bytes >= 0)) throw new UsageError('SIM_BAD_TRANSFER', `transfer ${i} has ${t.bytes} bytes`)
    for (const a of t.after ?? []) {
      if (a < 0 || a >= n || a === i)
        throw new UsageError('SIM_BAD_DEPENDENCY', `transfer ${i} waits for ${a}`)
      waitingOn[i]++
      dependents[a]!.push(i)
    }
    for (const l of t.path) linkBytes[l] += t.bytes
  })

  const remaining = Float64Array.from(transfers, (t) => t.bytes)
  // Transfers in their latency phase, keyed by the time they start moving bytes.
  const starting: { at: number; id: number }[] = []
  const active = new Set<number>()
  let now = 0
  let done = 0
  let events = 0
  const release = (id: number) => {
    const t = transfers[id]!
    let alpha = t.startup ?? 0
    for (const l of t.path) alpha += links[l]!.latency
    starting.push({ at: now + alpha, id })
  }
  for (let i = 0; i < n; i++) if (waitingOn[i] === 0) release(i)

  while (done < n) {
    // Admit every transfer whose latency has elapsed.
    starting.sort((a, b) => a.at - b.at)
    while (starting.length > 0 && starting[0]!.at <= now) active.add(starting.shift()!.id)
    const ids = [...active]
    const rates = maxMinRates(
      links,
      ids.map((id) => transfers[id]!.path),
    )
    let dt = starting.length > 0 ? starting[0]!.at - now : Number.POSITIVE_INFINITY
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
      remaining[id]! -= rates[j]! * dt
      const t = transfers[id]!
      if (remaining[id]! <= SIMULTANEOUS * Math.max(1, t.bytes)) {
        active.delete(id)
        finish[id] = now
        done++
        for (const dep of dependents[id]!) if (--waitingOn[dep] === 0) release(dep)
      }
    })
  }
  let makespan = 0
  for (const f of finish) makespan = Math.max(makespan, f)
  return { makespan, finish, linkBytes, events }
}
