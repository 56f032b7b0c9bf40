import { stat } from 'node:fs/promises'
import { CodebookError, UsageError } from '../errors.ts'
import { type LabelledImage, loadGridImages } from '../images/grid.ts'
import { loadImageFolder } from '../images/image-folder.ts'
import { loadZipImages } from '../images/zip-images.ts'

/**
 * Where labelled images come from: a grid image with classes in bands of rows, a folder with one
 * sub-folder per class, or a zip laid out the same way. `limitPerClass` keeps only the first n
 * images (in load order) of every class: a smaller, still stratified set.
 */
export type LabelledImageSource = (
  | {
      kind: 'grid'
      file: string
      cellWidth: number
      cellHeight: number
      rowsPerClass: number
      /** Keep only the first `columns` cells of every grid row (a smaller, still stratified set). */
      columns?: number
    }
  | { kind: 'folder'; dir: string }
  | { kind: 'zip'; file: string }
) & { limitPerClass?: number }

/** Images with labels 0..classes−1, ready to split and encode. */
export interface LabelledImageSet {
  images: LabelledImage[]
  labels: Int32Array
  /** Class names in label order (sub-folder names, or the label index for a grid). */
  classes: string[]
  /** The file of each image for a folder source, else null (parallel to `images`). */
  files: (string | null)[]
}

/**
 * Loads labelled images from `source`. Throws `FILE_NOT_FOUND` for a missing path,
 * `EVAL_UNLABELLED` for a folder image outside every class sub-folder, `EVAL_ONE_CLASS` when
 * fewer than two classes are found, plus the loaders' own codes (`GRID_MISMATCH`, `NO_IMAGES`, …).
 */
export async function loadLabelledImages(source: LabelledImageSource): Promise<LabelledImageSet> {
  const path = source.kind === 'folder' ? source.dir : source.file
  let isDirectory: boolean
  try {
    isDirectory = (await stat(path)).isDirectory()
  } catch {
    throw new CodebookError('FILE_NOT_FOUND', `${path}: no such file or folder`)
  }
  let set: LabelledImageSet
  if (source.kind === 'grid') {
    if (isDirectory)
      throw new UsageError('BAD_USAGE', `${path}: a grid source needs one image file, not a folder`)
    const { columns } = source
    if (columns !== undefined && (!Number.isInteger(columns) || columns < 1))
      throw new UsageError('BAD_OPTION', `${path}: columns must be a positive integer, got ${columns}`)
    const { images } = await loadGridImages(path, source)
    // Renumber after cropping so an image's id is its index in the evaluated set.
    const kept = images
      .filter((im) => columns === undefined || im.gridCol < columns)
      .map((im, id) => ({ ...im, id }))
    const classCount = Math.max(-1, ...kept.map((im) => im.label ?? -1)) + 1
    set = {
      images: kept,
      labels: Int32Array.from(kept, (im) => im.label ?? 0),
      classes: Array.from({ length: classCount }, (_, i) => String(i)),
      files: kept.map(() => null),
    }
  } else if (source.kind === 'zip') {
    if (isDirectory)
      throw new UsageError('BAD_USAGE', `${path}: a zip source needs a .zip file, not a folder`)
    const zip = await loadZipImages(path)
    set = {
      images: zip.images,
      labels: Int32Array.from(zip.images, (im) => im.label ?? 0),
      classes: zip.classes,
      files: zip.files,
    }
  } else {
    if (!isDirectory)
      throw new UsageError('BAD_USAGE', `${path}: not a folder (give --grid for a grid image)`)
    const folder = await loadImageFolder(path)
    const loose = folder.images.findIndex((im) => im.label === null)
    if (loose >= 0)
      throw new UsageError(
        'EVAL_UNLABELLED',
        `${folder.files[loose]}: evaluation needs every image inside a class sub-folder`,
      )
    set = {
      images: folder.images,
      labels: Int32Array.from(folder.images, (im) => im.label ?? 0),
      classes: folder.classes,
      files: folder.files,
    }
  }
  if (set.classes.length < 2)
    throw new UsageError('EVAL_ONE_CLASS', `${path}: found ${set.classes.length} class(es), need at least 2`)
  return source.limitPerClass === undefined ? set : firstPerClass(set, source.limitPerClass, path)
}

/** The first `limit` images of every class, in order, renumbered so an image's id is its index. */
function firstPerClass(set: LabelledImageSet, limit: number, path: string): LabelledImageSet {
  if (!Number.isInteger(limit) || limit < 1)
    throw new UsageError('BAD_OPTION', `${path}: limitPerClass must be a positive integer, got ${limit}`)
  const seen = new Array<number>(set.classes.length).fill(0)
  const keep = set.images.flatMap((_, i) => (seen[set.labels[i]!]!++ < limit ? [i] : []))
  return {
    images: keep.map((i, id) => ({ ...set.images[i]!, id })),
    labels: Int32Array.from(keep, (i) => set.labels[i]!),
    classes: set.classes,
    files: keep.map((i) => set.files[i] ?? null),
  }
}
