/** Payload bytes sent and received, split by whether the peer is in the same rack. */
export interface ByteTotals {
  sent: number
  received: number
  intraRackSent: number
  crossRackSent: number
  intraRackReceived: number
  crossRackReceived: number
}

/** An all-zero {@link ByteTotals}. */
export function zeroTotals(): ByteTotals {
  return {
    sent: 0,
    received: 0,
    intraRackSent: 0,
    crossRackSent: 0,
    intraRackReceived: 0,
    crossRackReceived: 0,
  }
}

/** `a − b`, field by field: the bytes moved between two snapshots. */
export function diffTotals(a: ByteTotals, b: ByteTotals): ByteTotals {
  return {
    sent: a.sent - b.sent,
    received: a.received - b.received,
    intraRackSent: a.intraRackSent - b.intraRackSent,
    crossRackSent: a.crossRackSent - b.crossRackSent,
    intraRackReceived: a.intraRackReceived - b.intraRackReceived,
    crossRackReceived: a.crossRackReceived - b.crossRackReceived,
  }
}

/** `a + b`, field by field. */
export function addTotals(a: ByteTotals, b: ByteTotals): ByteTotals {
  return {
    sent: a.sent + b.sent,
    received: a.received + b.received,
    intraRackSent: a.intraRackSent + b.intraRackSent,
    crossRackSent: a.crossRackSent + b.crossRackSent,
    intraRackReceived: a.intraRackReceived + b.intraRackReceived,
    crossRackReceived: a.crossRackReceived + b.crossRackReceived,
  }
}

/**
 * Running payload-byte counters of one node. Only payload bytes count (not the 40-byte frame
 * headers), so the totals match the cost models: a simple broadcast root sends exactly (p − 1)·n.
 */
export class ByteCounters {
  private totals = zeroTotals()
  /**
   * Totals per collective op id. A receiver cannot snapshot around an op (its bytes may arrive
   * before it even starts the op), so bytes are also filed under the op that carried them.
   */
  private readonly perOp = new Map<number, ByteTotals>()

  /** @param rackOf rack name of a rank; the node's own rack is `rackOf(self)`. */
  constructor(
    private readonly self: number,
    private readonly rackOf: (rank: number) => string,
  ) {}

  /** Counts `bytes` of op `op` sent to `to`. */
  sent(to: number, bytes: number, op: number): void {
    const intra = this.rackOf(to) === this.rackOf(this.self)
    for (const t of [this.totals, this.opTotals(op)]) {
      t.sent += bytes
      if (intra) t.intraRackSent += bytes
      else t.crossRackSent += bytes
    }
  }

  /** Counts `bytes` of op `op` received from `from`. */
  received(from: number, bytes: number, op: number): void {
    const intra = this.rackOf(from) === this.rackOf(this.self)
    for (const t of [this.totals, this.opTotals(op)]) {
      t.received += bytes
      if (intra) t.intraRackReceived += bytes
      else t.crossRackReceived += bytes
    }
  }

  private opTotals(op: number): ByteTotals {
    let t = this.perOp.get(op)
    if (!t) this.perOp.set(op, (t = zeroTotals()))
    return t
  }

  /** Returns and forgets the totals of op `op` (call once the op has completed at this node). */
  takeOp(op: number): ByteTotals {
    const t = this.perOp.get(op) ?? zeroTotals()
    this.perOp.delete(op)
    return t
  }

  /** A copy of the running totals (subtract two snapshots with {@link diffTotals}). */
  snapshot(): ByteTotals {
    return { ...this.totals }
  }
}
