/** One progress observation: bytes sent so far at time `t` (ms). */
interface Sample {
  t: number
  bytes: number
}

/** Throughput and time-to-go of a transfer, from recent progress samples. */
export interface RateEstimate {
  /** Bytes per second over the window, or null before two samples span any time. */
  bytesPerSecond: number | null
  /** Seconds until `total` at that rate, or null when the rate is unknown or zero. */
  etaSeconds: number | null
}

/**
 * A sliding-window rate meter. The window (default 5 s) keeps the figure steady across tus chunk
 * boundaries, where progress pauses while the next PATCH starts, yet follows a changing link.
 */
export function createRateMeter(windowMs = 5_000) {
  const samples: Sample[] = []
  return {
    /** Records `bytes` sent at time `t` (ms) and returns the estimate for a transfer of `total` bytes. */
    observe(t: number, bytes: number, total: number): RateEstimate {
      samples.push({ t, bytes })
      while (samples.length > 2 && t - samples[1]!.t >= windowMs) samples.shift()
      const first = samples[0]!
      const dt = (t - first.t) / 1000
      if (dt <= 0) return { bytesPerSecond: null, etaSeconds: null }
      const rate = Math.max(0, bytes - first.bytes) / dt
      return { bytesPerSecond: rate, etaSeconds: rate > 0 ? Math.max(0, total - bytes) / rate : null }
    },
    /** Forgets all samples (after a pause, the old rate says nothing). */
    reset(): void {
      samples.length = 0
    },
  }
}
