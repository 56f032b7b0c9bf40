import sharp, { type OutputInfo } from 'sharp'
import { CodebookError } from '../errors.ts'

/** A greyscale image: `pixels` holds width × height intensities in [0, 1], row-major (row 0 at the top). */
export interface GreyImage {
  pixels: Float32Array
  width: number
  height: number
}

/**
 * Decodes a PNG or JPEG (anything sharp reads) into 8-bit greyscale, still as bytes.
 * Transparent pixels are flattened onto black first so a stray RGB value under alpha 0 cannot leak in.
 * `file` is a path or the encoded bytes (then `name` labels errors).
 * Throws `IMAGE_UNREADABLE` naming the file when it is missing or not an image.
 */
export async function decodeGreyBytes(
  file: string | Buffer,
  name: string = typeof file === 'string' ? file : 'image',
): Promise<{ bytes: Uint8Array; width: number; height: number }> {
  let result: { data: Buffer; info: OutputInfo }
  try {
    result = await sharp(file)
      .flatten()
      .greyscale()
      .toColourspace('b-w')
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true })
  } catch (err) {
    throw new CodebookError('IMAGE_UNREADABLE', `${name}: cannot decode image (${(err as Error).message})`, {
      cause: err,
    })
  }
  const { data, info } = result
  const { width, height, channels } = info
  if (channels === 1)
    return { bytes: new Uint8Array(data.buffer, data.byteOffset, width * height), width, height }
  // 'b-w' should give one band; keep the first if a codec ever hands back more.
  const bytes = new Uint8Array(width * height)
  for (let i = 0; i < bytes.length; i++) bytes[i] = data[i * channels]
  return { bytes, width, height }
}

/** Loads one PNG/JPEG as greyscale intensities in [0, 1]. Throws `IMAGE_UNREADABLE` when it cannot be decoded. */
export async function loadImage(file: string): Promise<GreyImage> {
  const { bytes, width, height } = await decodeGreyBytes(file)
  const pixels = new Float32Array(bytes.length)
  for (let i = 0; i < bytes.length; i++) pixels[i] = bytes[i] / 255
  return { pixels, width, height }
}
