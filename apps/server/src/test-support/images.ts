import { crc32, createDeflate } from 'node:zlib'
import sharp from 'sharp'
import yazl from 'yazl'
import { DIGITS_PNG } from '../datasets/demo-seed.ts'

/** Cell `i` of digits.png (row-major, 100 columns of 20 × 20) as a PNG, cut by sharp. */
export function cellPng(i: number): Promise<Buffer> {
  return sharp(DIGITS_PNG)
    .extract({ left: (i % 100) * 20, top: Math.floor(i / 100) * 20, width: 20, height: 20 })
    .png()
    .toBuffer()
}

/** A real zip built with yazl from [entry name, bytes]. */
export async function zipOf(files: [string, Buffer][]): Promise<Buffer> {
  const zip = new yazl.ZipFile()
  for (const [name, bytes] of files) zip.addBuffer(bytes, name)
  zip.end()
  const chunks: Buffer[] = []
  for await (const c of zip.outputStream) chunks.push(c as Buffer)
  return Buffer.concat(chunks)
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(body))
  return Buffer.concat([length, body, crc])
}

/**
 * A valid all-black 8-bit greyscale PNG of `width` × `height`, written by hand from the PNG spec
 * and deflated row by row, so a 16,000 × 16,000 image (256 M pixels) takes a few hundred KB and
 * never sits in memory decoded.
 */
export async function blackPng(width: number, height: number): Promise<Buffer> {
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr.set([8, 0, 0, 0, 0], 8) // bit depth 8, greyscale, deflate, adaptive filtering, no interlace
  const deflate = createDeflate({ level: 9 })
  const chunks: Buffer[] = []
  deflate.on('data', (c: Buffer) => chunks.push(c))
  const ended = new Promise((resolve, reject) => deflate.on('end', resolve).on('error', reject))
  const row = Buffer.alloc(width + 1) // filter byte 0, then black pixels
  for (let y = 0; y < height; y++) {
    if (!deflate.write(row)) await new Promise((resolve) => deflate.once('drain', resolve))
  }
  deflate.end()
  await ended
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', Buffer.concat(chunks)),
    pngChunk('IEND', Buffer.alloc(0)),
  ])
}
