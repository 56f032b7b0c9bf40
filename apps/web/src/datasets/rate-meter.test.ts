import { describe, expect, it } from 'vitest'
import { createRateMeter } from './rate-meter.ts'

describe('createRateMeter', () => {
  it('knows nothing from one sample', () => {
    const meter = createRateMeter()
    expect(meter.observe(1000, 0, 100)).toEqual({ bytesPerSecond: null, etaSeconds: null })
  })

  it('measures bytes over elapsed time and the time left at that rate', () => {
    const meter = createRateMeter(5_000)
    meter.observe(0, 0, 20e6)
    expect(meter.observe(1_000, 5e6, 20e6)).toEqual({ bytesPerSecond: 5e6, etaSeconds: 3 })
  })

  it('forgets samples older than the window, so the rate follows a changed link', () => {
    const meter = createRateMeter(2_000)
    meter.observe(0, 0, 100e6)
    meter.observe(1_000, 10e6, 100e6) // 10 MB/s
    meter.observe(3_000, 12e6, 100e6) // then 1 MB/s
    const last = meter.observe(4_000, 13e6, 100e6)
    // Window now starts at t = 3000: 1 MB in 1 s.
    expect(last.bytesPerSecond).toBe(1e6)
    expect(last.etaSeconds).toBe(87)
  })

  it('starts afresh after reset', () => {
    const meter = createRateMeter()
    meter.observe(0, 0, 10)
    meter.reset()
    expect(meter.observe(5_000, 5, 10).bytesPerSecond).toBeNull()
  })
})
