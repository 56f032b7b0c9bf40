/**
 * The columns of an assignments export (see `AssignmentFormat` in `@codebook/shared`): one
 * definition that the .npy record layout and the CSV header both follow.
 */

/** A fixed-width field of the .npy record. */
export interface AssignmentField {
  name: string
  /** NumPy type string (little-endian). */
  descr: '<i8' | '<i4' | '<f8'
  bytes: number
}

const BASE_FIELDS: readonly AssignmentField[] = [
  { name: 'row', descr: '<i8', bytes: 8 },
  { name: 'word', descr: '<i4', bytes: 4 },
  { name: 'distance_sq', descr: '<f8', bytes: 8 },
]

/**
 * The id columns a dataset row carries, in the order of its `ids.npy` (int32 × 3 per row): none
 * when the dataset has no ids. The one place that knows what a dataset's ids are called.
 */
export function idColumns(hasIds: boolean): readonly AssignmentField[] {
  if (!hasIds) return []
  return ['picture', 'picture_row', 'picture_col'].map((name) => ({ name, descr: '<i4', bytes: 4 }) as const)
}

/** Every field of a record, in file order. */
export function assignmentFields(hasIds: boolean): readonly AssignmentField[] {
  return [...BASE_FIELDS, ...idColumns(hasIds)]
}

/** Bytes of one .npy record. */
export function recordBytes(fields: readonly AssignmentField[]): number {
  return fields.reduce((sum, f) => sum + f.bytes, 0)
}

/**
 * The .npy v1.0 header of a structured array of `n` records: magic, version, length, then the
 * dict padded with spaces and a newline so the data starts on a 64-byte boundary.
 */
export function structuredNpyHeader(fields: readonly AssignmentField[], n: number): Buffer {
  const descr = fields.map((f) => `('${f.name}', '${f.descr}')`).join(', ')
  const dict = `{'descr': [${descr}], 'fortran_order': False, 'shape': (${n},), }`
  const unpadded = 10 + dict.length + 1
  const total = Math.ceil(unpadded / 64) * 64
  const header = Buffer.alloc(total, 0x20)
  header.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0], 0)
  header.writeUInt16LE(total - 10, 8)
  header.write(dict, 10, 'latin1')
  header[total - 1] = 0x0a
  return header
}
