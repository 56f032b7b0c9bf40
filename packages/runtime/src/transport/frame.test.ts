import { describe, expect, it } from 'vitest'
import { createRng } from '../random/rng.ts'
import { encodeFrameHeader, FRAME_HEADER_BYTES, type FrameHeader, FrameStreamDecoder } from './frame.ts'

function frame(h: Omit<FrameHeader, 'payloadBytes'>, payload: Uint8Array): Buffer {
  return Buffer.concat([encodeFrameHeader({ ...h, payloadBytes: payload.length }), payload])
}

describe('FrameStreamDecoder', () => {
  const rng = createRng(4)
  const payloads = [0, 1, 39, 40, 41, 1000, 70_000].map((n) =>
    Uint8Array.from({ length: n }, () => rng.int(256)),
  )
  const headers = payloads.map((_, i) => ({
    type: 2,
    step: i,
    from: 7,
    op: 123456789,
    chunkIndex: i,
    chunkCount: payloads.length,
    offset: 2 ** 40 + i,
    totalBytes: 2 ** 41,
  }))
  const stream = Buffer.concat(payloads.map((p, i) => frame(headers[i]!, p)))

  it('decodes headers and reassembles payload pieces whatever the read boundaries', () => {
    expect(FRAME_HEADER_BYTES).toBe(40)
    for (const cut of [1, 7, 40, 41, 4096, 65_536, stream.length]) {
      const got: { h: FrameHeader; bytes: Uint8Array; filled: number; ended: boolean }[] = []
      const d = new FrameStreamDecoder({
        header: (h) => got.push({ h, bytes: new Uint8Array(h.payloadBytes), filled: 0, ended: false }),
        data: (_h, piece, at) => {
          const f = got.at(-1)!
          expect(at).toBe(f.filled)
          f.bytes.set(piece, at)
          f.filled += piece.length
        },
        end: () => {
          got.at(-1)!.ended = true
        },
      })
      for (let at = 0; at < stream.length; at += cut) d.push(stream.subarray(at, at + cut))
      expect(got).toHaveLength(payloads.length)
      got.forEach((f, i) => {
        expect(f.h).toEqual({ ...headers[i], payloadBytes: payloads[i]!.length })
        expect(f.ended).toBe(true)
        expect(Buffer.compare(Buffer.from(f.bytes), Buffer.from(payloads[i]!))).toBe(0)
      })
    }
  })
})
