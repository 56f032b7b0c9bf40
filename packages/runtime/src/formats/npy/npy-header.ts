import { formatError } from '../error-codes.ts'

/** The NumPy magic string `\x93NUMPY`. */
export const NPY_MAGIC = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59])

/** Element types the runtime reads and writes as .npy (int32 only for `ids.npy`). */
export type NpyDtype = 'float32' | 'uint8' | 'int32'

/** What a .npy header says about the array. */
export interface NpyHeader {
  dtype: NpyDtype
  n: number
  d: number
  /** Offset of the first data byte (magic + version + length + dict, padded). */
  headerBytes: number
}

const DESCR: Record<NpyDtype, string> = { float32: '<f4', uint8: '|u1', int32: '<i4' }

/** Bytes per element of each dtype. */
export const ITEM_BYTES: Record<NpyDtype, number> = { float32: 4, uint8: 1, int32: 4 }

function dtypeOfDescr(descr: string): NpyDtype | null {
  // Byte order is irrelevant for one-byte types; NumPy writes '|u1' but '<u1' and 'u1' mean the same.
  if (descr === '<f4' || descr === 'f4' || descr === '=f4') return 'float32'
  if (descr === '|u1' || descr === '<u1' || descr === '>u1' || descr === 'u1' || descr === '=u1')
    return 'uint8'
  if (descr === '<i4' || descr === 'i4' || descr === '=i4') return 'int32'
  return null
}

/** Bytes needed before the header can be parsed: magic (6) + version (2) + length (2 or 4). */
export const NPY_PREAMBLE_BYTES = 12

/** Longest header accepted (a 2.0 header may declare 4 GiB); NumPy's own `np.load` stops at 10,000 bytes. */
export const NPY_MAX_HEADER_BYTES = 64 * 1024

/**
 * Reads the header length from the first bytes of a .npy file (NumPy format versions 1.0,
 * 2.0 and 3.0). Returns the total header size, i.e. the offset of the data.
 */
export function npyHeaderSize(head: Uint8Array, file: string): number {
  if (head.length < 10 || !Buffer.from(head.buffer, head.byteOffset, 6).equals(NPY_MAGIC)) {
    throw formatError('BAD_HEADER', 'missing the .npy magic \\x93NUMPY', { file })
  }
  const major = head[6]
  const view = new DataView(head.buffer, head.byteOffset, head.length)
  if (major === 1) return 10 + view.getUint16(8, true)
  if (major === 2 || major === 3) {
    if (head.length < 12) throw formatError('BAD_HEADER', 'header ends before its length field', { file })
    const size = 12 + view.getUint32(8, true)
    if (size > NPY_MAX_HEADER_BYTES)
      throw formatError('BAD_HEADER', `header declares ${size} bytes, more than ${NPY_MAX_HEADER_BYTES}`, {
        file,
      })
    return size
  }
  throw formatError('BAD_HEADER', `unsupported .npy format version ${major}.${head[7]}`, { file })
}

/** What a .npy header's dict says, before any dtype or layout policy: descr as written, order, 2-D shape. */
export interface NpyDict {
  descr: string
  fortranOrder: boolean
  n: number
  d: number
  /** Offset of the first data byte (magic + version + length + dict, padded). */
  headerBytes: number
}

/**
 * Parses a whole .npy header (`head` holds at least `npyHeaderSize` bytes) into its dict: a
 * NumPy dict literal with descr, fortran_order and a 2-D shape, else BAD_HEADER.
 */
export function parseNpyDict(head: Uint8Array, file: string): NpyDict {
  const headerBytes = npyHeaderSize(head, file)
  const dictStart = head[6] === 1 ? 10 : 12
  if (head.length < headerBytes)
    throw formatError('BAD_HEADER', `header declares ${headerBytes} bytes but the file is shorter`, { file })
  const dict = Buffer.from(head.buffer, head.byteOffset + dictStart, headerBytes - dictStart).toString(
    head[6] === 3 ? 'utf8' : 'latin1',
  )
  const descr = /['"]descr['"]\s*:\s*['"]([^'"]*)['"]/.exec(dict)?.[1]
  const fortran = /['"]fortran_order['"]\s*:\s*(True|False)/.exec(dict)?.[1]
  const shapeText = /['"]shape['"]\s*:\s*\(([^)]*)\)/.exec(dict)?.[1]
  if (
    descr === undefined ||
    fortran === undefined ||
    shapeText === undefined ||
    !dict.trimStart().startsWith('{')
  ) {
    throw formatError(
      'BAD_HEADER',
      `header is not a NumPy dict with descr, fortran_order and shape: ${JSON.stringify(dict.trim().slice(0, 120))}`,
      { file },
    )
  }
  const dims = shapeText
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
  if (dims.length !== 2 || !dims.every((s) => /^\d+L?$/.test(s))) {
    throw formatError('BAD_HEADER', `shape (${shapeText.trim().slice(0, 60)}) is not 2-D (n, d)`, { file })
  }
  const n = Number.parseInt(dims[0], 10)
  const d = Number.parseInt(dims[1], 10)
  if (!Number.isSafeInteger(n * d))
    throw formatError('BAD_HEADER', `shape (${n}, ${d}) is too large`, { file })
  return { descr, fortranOrder: fortran === 'True', n, d, headerBytes }
}

/**
 * Parses a whole .npy header the strict way the store needs for random access: a 2-D C-order
 * little-endian array of one of `allowed`; anything else is a coded error.
 */
export function parseNpyHeader(head: Uint8Array, file: string, allowed: readonly NpyDtype[]): NpyHeader {
  const { descr, fortranOrder, n, d, headerBytes } = parseNpyDict(head, file)
  const dtype = dtypeOfDescr(descr)
  if (dtype === null || !allowed.includes(dtype)) {
    throw formatError(
      'UNSUPPORTED_DTYPE',
      `dtype '${descr.slice(0, 40)}' is not supported (expected ${allowed.map((t) => DESCR[t]).join(' or ')})`,
      { file },
    )
  }
  if (fortranOrder && n > 1 && d > 1)
    throw formatError('BAD_HEADER', 'fortran_order True is not supported here; save the array in C order', {
      file,
    })
  return { dtype, n, d, headerBytes }
}

/** Total header size the writers reserve: room for any n and d below 2^53, a multiple of 64 as NumPy requires. */
export const NPY_FIXED_HEADER_BYTES = 128

/**
 * Builds a version 1.0 .npy header of exactly `NPY_FIXED_HEADER_BYTES` bytes (spaces then `\n`
 * pad the dict), so a streaming writer can reserve it before n is known and overwrite it at the end.
 */
export function buildNpyHeader(dtype: NpyDtype, n: number, d: number): Buffer {
  const dict = `{'descr': '${DESCR[dtype]}', 'fortran_order': False, 'shape': (${n}, ${d}), }`
  const dictBytes = NPY_FIXED_HEADER_BYTES - 10
  if (dict.length + 1 > dictBytes)
    throw new RangeError(`npy header for shape (${n}, ${d}) does not fit ${NPY_FIXED_HEADER_BYTES} bytes`)
  const out = Buffer.alloc(NPY_FIXED_HEADER_BYTES, 0x20)
  NPY_MAGIC.copy(out, 0)
  out[6] = 1
  out[7] = 0
  out.writeUInt16LE(dictBytes, 8)
  out.write(dict, 10, 'latin1')
  out[NPY_FIXED_HEADER_BYTES - 1] = 0x0a
  return out
}
