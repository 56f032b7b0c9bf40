import type net from 'node:net'
import { CodebookError } from '../errors.ts'

/** A control message: a JSON object with a `type`, plus binary attachments (centroids, sums). */
export interface ControlMessage {
  body: { type: string; id?: number; [key: string]: unknown }
  blobs: Uint8Array[]
}

/**
 * Driver ↔ worker control channel over TCP: the same protocol whether the driver spawned the
 * worker or it joined with `codebook worker --join`. A message is
 * `f64 totalBytes | u32 jsonBytes | json | u32 blobCount | (f64 blobBytes)* | blob bytes…`;
 * blobs are written as views over the caller's typed arrays (no copy) and arrive as views.
 */
export class ControlChannel {
  private pending: Buffer[] = []
  private pendingBytes = 0
  private need = 8
  private listeners: ((m: ControlMessage) => void)[] = []
  private closeListeners: ((err?: Error) => void)[] = []
  private closedFlag = false

  constructor(readonly socket: net.Socket) {
    socket.setNoDelay(true)
    socket.on('data', (chunk: Buffer) => this.push(chunk))
    socket.on('error', () => {})
    socket.on('close', () => {
      this.closedFlag = true
      for (const l of this.closeListeners) l()
    })
  }

  /** Whether the connection is gone. */
  get closed(): boolean {
    return this.closedFlag
  }

  /** Registers a handler for every incoming message. */
  onMessage(listener: (m: ControlMessage) => void): void {
    this.listeners.push(listener)
  }

  /** Registers a handler for the connection closing (peer exit, kill, or network loss). */
  onClose(listener: () => void): void {
    this.closeListeners.push(listener)
  }

  /** Sends one message; returns false if the channel is closed. */
  send(body: ControlMessage['body'], blobs: Uint8Array[] = []): boolean {
    if (this.closedFlag) return false
    const json = Buffer.from(JSON.stringify(body))
    const head = Buffer.allocUnsafe(8 + 4 + json.length + 4 + 8 * blobs.length)
    let at = 12
    json.copy(head, at)
    at += json.length
    head.writeUInt32LE(blobs.length, at)
    at += 4
    let total = head.length
    for (const b of blobs) {
      head.writeDoubleLE(b.byteLength, at)
      at += 8
      total += b.byteLength
    }
    head.writeDoubleLE(total, 0)
    head.writeUInt32LE(json.length, 8)
    this.socket.cork()
    this.socket.write(head)
    for (const b of blobs) if (b.byteLength > 0) this.socket.write(b)
    process.nextTick(() => this.socket.uncork())
    return true
  }

  /** Closes the connection. */
  close(): void {
    this.socket.end()
    this.socket.destroy()
  }

  private push(chunk: Buffer): void {
    this.pending.push(chunk)
    this.pendingBytes += chunk.length
    if (this.pendingBytes < this.need) return
    let buf = this.pending.length === 1 ? chunk : Buffer.concat(this.pending, this.pendingBytes)
    for (;;) {
      if (buf.length < 8) {
        this.need = 8
        break
      }
      const total = buf.readDoubleLE(0)
      if (buf.length < total) {
        this.need = total
        break
      }
      const msg = decode(buf.subarray(0, total))
      buf = buf.subarray(total)
      for (const l of this.listeners) l(msg)
    }
    this.pending = buf.length > 0 ? [buf] : []
    this.pendingBytes = buf.length
  }
}

function decode(b: Buffer): ControlMessage {
  const jsonBytes = b.readUInt32LE(8)
  let at = 12
  const body = JSON.parse(b.subarray(at, at + jsonBytes).toString('utf8'))
  if (typeof body?.type !== 'string')
    throw new CodebookError('CONTROL_BAD_MESSAGE', 'control message without a type')
  at += jsonBytes
  const count = b.readUInt32LE(at)
  at += 4
  const sizes: number[] = []
  for (let i = 0; i < count; i++) {
    sizes.push(b.readDoubleLE(at))
    at += 8
  }
  const blobs: Uint8Array[] = []
  for (const size of sizes) {
    // Copy so each blob is 8-byte aligned and can back a Float64Array view.
    blobs.push(new Uint8Array(b.subarray(at, at + size)))
    at += size
  }
  return { body, blobs }
}

/** Views a blob as float32 values (blobs from the channel are aligned copies). */
export function asFloat32(b: Uint8Array): Float32Array {
  return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4)
}

/** Views a blob as float64 values. */
export function asFloat64(b: Uint8Array): Float64Array {
  return new Float64Array(b.buffer, b.byteOffset, b.byteLength / 8)
}

/** Bytes of a typed array, as a view. */
export function bytesOf(a: ArrayBufferView): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength)
}
