/**
 * Data-plane frame codec. Every frame is a fixed 40-byte little-endian header followed by
 * `payloadBytes` of payload. A message is a byte range of a logical buffer of `totalBytes`,
 * cut into `chunkCount` frames; each frame says where its bytes go (`offset`), so a receiver
 * can place chunks straight into the destination and a chain node can forward chunk i while
 * chunk i + 1 is still arriving.
 *
 * Layout: u8 type | u8 flags | u16 step | u32 from | u32 op | u32 chunkIndex | u32 chunkCount |
 * u32 payloadBytes | f64 offset | f64 totalBytes. Offsets and totals are f64 so messages may
 * exceed 4 GiB; a single frame's payload is bounded by the chunk size.
 */
export const FRAME_HEADER_BYTES = 40

/**
 * Frame kinds: `hello` opens a connection (from = sender rank, op = session, chunkIndex = the rank
 * the sender means to reach); `welcome` is the acceptor's answer (from = its rank, op = its
 * session); `data` carries message bytes.
 */
export const FrameType = { hello: 1, data: 2, welcome: 3 } as const
export type FrameType = (typeof FrameType)[keyof typeof FrameType]

/** The decoded header of one frame. */
export interface FrameHeader {
  type: number
  /** Phase of a collective (a collective may exchange several messages with the same peer). */
  step: number
  /** Rank of the sender. */
  from: number
  /** Collective operation id, unique per collective call across the participants. */
  op: number
  chunkIndex: number
  chunkCount: number
  payloadBytes: number
  /** Where this frame's payload starts in the logical message buffer. */
  offset: number
  /** Length of the whole logical message buffer. */
  totalBytes: number
}

/** Encodes a header into a fresh 40-byte buffer. */
export function encodeFrameHeader(h: FrameHeader): Buffer {
  const b = Buffer.allocUnsafe(FRAME_HEADER_BYTES)
  b.writeUInt8(h.type, 0)
  b.writeUInt8(0, 1)
  b.writeUInt16LE(h.step, 2)
  b.writeUInt32LE(h.from, 4)
  b.writeUInt32LE(h.op, 8)
  b.writeUInt32LE(h.chunkIndex, 12)
  b.writeUInt32LE(h.chunkCount, 16)
  b.writeUInt32LE(h.payloadBytes, 20)
  b.writeDoubleLE(h.offset, 24)
  b.writeDoubleLE(h.totalBytes, 32)
  return b
}

/** Decodes the header at `at` in `b` (which must hold at least 40 bytes from there). */
export function decodeFrameHeader(b: Buffer, at: number): FrameHeader {
  return {
    type: b.readUInt8(at),
    step: b.readUInt16LE(at + 2),
    from: b.readUInt32LE(at + 4),
    op: b.readUInt32LE(at + 8),
    chunkIndex: b.readUInt32LE(at + 12),
    chunkCount: b.readUInt32LE(at + 16),
    payloadBytes: b.readUInt32LE(at + 20),
    offset: b.readDoubleLE(at + 24),
    totalBytes: b.readDoubleLE(at + 32),
  }
}

/** Receives a decoded frame stream piece by piece (see {@link FrameStreamDecoder}). */
export interface FrameSink {
  /** A header was decoded; its payload pieces follow. */
  header(h: FrameHeader): void
  /** `piece` holds payload bytes [at, at + piece.length) of the current frame: a view into the socket read, valid only during the call. */
  data(h: FrameHeader, piece: Buffer, at: number): void
  /** The current frame's payload is complete. */
  end(h: FrameHeader): void
}

/**
 * Streaming decoder over a TCP byte stream: headers are decoded as soon as their 40 bytes are
 * in, and payload bytes are handed to the sink as views of each socket read, so the receiver
 * copies them once, straight into the message's destination buffer (no reassembly copy).
 */
export class FrameStreamDecoder {
  private readonly head = Buffer.allocUnsafe(FRAME_HEADER_BYTES)
  private headBytes = 0
  private current: FrameHeader | null = null
  private done = 0

  constructor(private readonly sink: FrameSink) {}

  /** Feeds one socket read. */
  push(chunk: Buffer): void {
    let at = 0
    while (at < chunk.length) {
      if (!this.current) {
        const take = Math.min(FRAME_HEADER_BYTES - this.headBytes, chunk.length - at)
        chunk.copy(this.head, this.headBytes, at, at + take)
        this.headBytes += take
        at += take
        if (this.headBytes < FRAME_HEADER_BYTES) return
        this.headBytes = 0
        const h = decodeFrameHeader(this.head, 0)
        this.current = h
        this.done = 0
        this.sink.header(h)
        if (h.payloadBytes === 0) {
          this.current = null
          this.sink.end(h)
        }
        continue
      }
      const h = this.current
      const take = Math.min(h.payloadBytes - this.done, chunk.length - at)
      this.sink.data(h, chunk.subarray(at, at + take), this.done)
      this.done += take
      at += take
      if (this.done === h.payloadBytes) {
        this.current = null
        this.sink.end(h)
      }
    }
  }
}
