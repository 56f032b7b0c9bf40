/** The two ways an image set arrives: one grid image cut into cells, or a zip of class folders. */
export type ImageSetKind = 'grid' | 'zip'

/** The upload form as typed: numbers stay strings until validated. */
export interface ImageSetFormValues {
  name: string
  kind: ImageSetKind
  /** Cell size of a grid image, "WxH" in pixels (e.g. "20x20"). */
  grid: string
  /** Consecutive cell rows that share one label. */
  rowsPerClass: string
}

/** The chosen file as far as validation needs it. */
export interface ChosenFile {
  name: string
  size: number
}

/** Defaults: the digits demo's layout (20 × 20 px cells, 5 rows per class). */
export const defaultImageSetForm: ImageSetFormValues = {
  name: '',
  kind: 'grid',
  grid: '20x20',
  rowsPerClass: '5',
}

/** A grid cell larger than this is surely a typo (the runtime cuts cells from one decoded image). */
const MAX_CELL_PX = 4096

/** Field name → message, for the fields that are wrong. */
export type ImageSetFormErrors = Partial<Record<keyof ImageSetFormValues | 'file', string>>

/** The query of `PUT /api/image-sets` the form produces. */
export interface ImageSetUploadQuery {
  name: string
  kind: ImageSetKind
  grid?: string
  rowsPerClass?: number
}

/** The kind a file name implies: `.zip` → zip, PNG/JPEG → grid, anything else → null. */
export function kindOfFile(filename: string): ImageSetKind | null {
  const lower = filename.toLowerCase()
  if (lower.endsWith('.zip')) return 'zip'
  if (/\.(png|jpe?g)$/.test(lower)) return 'grid'
  return null
}

/** Parses "20x20" (also "20×20", "20 x 20") into a cell width and height. */
export function parseGrid(text: string): { width: number; height: number } | null {
  const m = /^\s*(\d+)\s*[x×X]\s*(\d+)\s*$/.exec(text)
  if (!m) return null
  const width = Number(m[1])
  const height = Number(m[2])
  if (width < 1 || height < 1 || width > MAX_CELL_PX || height > MAX_CELL_PX) return null
  return { width, height }
}

/**
 * Validates the upload form against the chosen file and returns the upload's query or the
 * errors per field. The grid fields matter only for a grid image.
 */
export function validateImageSetForm(
  values: ImageSetFormValues,
  file: ChosenFile | null,
): { ok: true; query: ImageSetUploadQuery } | { ok: false; errors: ImageSetFormErrors } {
  const errors: ImageSetFormErrors = {}
  if (file === null) errors.file = 'Choose a zip of class folders or a grid image (PNG/JPEG)'
  else if (file.size === 0) errors.file = `${file.name} is empty`
  else {
    const kind = kindOfFile(file.name)
    if (kind === null) errors.file = `${file.name}: expected a .zip, .png, .jpg or .jpeg file`
    else if (kind !== values.kind)
      errors.file =
        values.kind === 'zip' ? `${file.name} is an image, not a zip` : `${file.name} is a zip, not an image`
  }
  const name = values.name.trim()
  if (name === '') errors.name = 'Give the image set a name'
  else if (name.length > 200) errors.name = 'Name: at most 200 characters'
  let grid: { width: number; height: number } | null = null
  let rowsPerClass = 0
  if (values.kind === 'grid') {
    grid = parseGrid(values.grid)
    if (grid === null) errors.grid = `Cell size must look like 20x20 (1 … ${MAX_CELL_PX} px each)`
    const rows = values.rowsPerClass.trim()
    if (!/^\d+$/.test(rows) || Number(rows) < 1)
      errors.rowsPerClass = 'Rows per class must be a whole number ≥ 1'
    else rowsPerClass = Number(rows)
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors }
  if (values.kind === 'zip') return { ok: true, query: { name, kind: 'zip' } }
  return {
    ok: true,
    query: { name, kind: 'grid', grid: `${grid?.width}x${grid?.height}`, rowsPerClass },
  }
}
