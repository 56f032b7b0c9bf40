import { extname } from 'node:path'
import { CodebookError } from '../errors.ts'
import type { LabelledImage } from './grid.ts'
import { IMAGE_EXTENSIONS, type ImageFolder } from './image-folder.ts'
import { decodeGreyBytes } from './load-image.ts'
import { openZipArchive, type ZipFileEntry } from './zip-reader.ts'

/** A zip's class layout: which entry is which image of which class, before any decoding. */
export interface ZipLayout {
  /** Class names in label order (folder names, sorted by code point). */
  classes: string[]
  /** Image entries in load order: class by class, names sorted inside each class. */
  entries: { name: string; label: number }[]
}

/**
 * Works out the classes of a zip laid out one folder per class (`cat/1.png`, `dog/a.jpg`), also
 * when everything sits in one wrapping folder (`pets/cat/1.png`, as zipping a folder gives).
 * macOS metadata (`__MACOSX/`, `.DS_Store`, `._*`) and other dot files are skipped.
 *
 * Throws `NOT_AN_IMAGE` naming the first entry that is not a PNG/JPEG file, `ZIP_BAD_LAYOUT` naming
 * an image outside a class folder (or nested deeper) when class folders exist, and
 * `NO_CLASS_FOLDERS` when no image is in a class folder.
 */
export function zipLayout(file: string, all: readonly ZipFileEntry[]): ZipLayout {
  const files = all.filter((e) => !isJunk(e.name))
  const bad = files.find((e) => !IMAGE_EXTENSIONS.includes(extname(e.name).toLowerCase()))
  if (bad)
    throw new CodebookError(
      'NOT_AN_IMAGE',
      `${file}: entry '${bad.name}' is not a ${IMAGE_EXTENSIONS.join('/')} image; the zip must hold only images in class folders`,
    )
  let paths = files.map((e) => ({ name: e.name, parts: e.name.split('/') }))
  const top = paths[0]?.parts[0]
  if (paths.length > 0 && paths.every((p) => p.parts.length === 3 && p.parts[0] === top))
    paths = paths.map((p) => ({ name: p.name, parts: p.parts.slice(1) }))
  const inClass = paths.filter((p) => p.parts.length === 2)
  if (inClass.length === 0)
    throw new CodebookError(
      'NO_CLASS_FOLDERS',
      `${file}: no image inside a class folder; lay the zip out as <class>/<image>.png, one folder per class`,
    )
  const stray = paths.find((p) => p.parts.length !== 2)
  if (stray)
    throw new CodebookError(
      'ZIP_BAD_LAYOUT',
      `${file}: entry '${stray.name}' is not directly inside a class folder (<class>/<image>)`,
    )
  const classes = [...new Set(inClass.map((p) => p.parts[0]!))].sort(compare)
  const label = new Map(classes.map((c, i) => [c, i]))
  const entries = inClass
    .map((p) => ({ name: p.name, label: label.get(p.parts[0]!)!, file: p.parts[1]! }))
    .sort((a, b) => a.label - b.label || compare(a.file, b.file))
    .map(({ name, label }) => ({ name, label }))
  return { classes, entries }
}

/**
 * Loads the images of a zip with one folder per class (see {@link zipLayout}), as
 * `loadImageFolder` loads a folder: label i is the i-th class folder in sorted order, ids in load
 * order, `files` are the entry names. Entries are read one at a time (the zip is not unpacked).
 *
 * Throws the codes of {@link openZipArchive} and {@link zipLayout}, and `UNDECODABLE_IMAGE`
 * naming the entry that is not a decodable image.
 */
export async function loadZipImages(file: string): Promise<ImageFolder> {
  const zip = await openZipArchive(file)
  try {
    const { classes, entries } = zipLayout(file, zip.entries)
    const images: LabelledImage[] = []
    for (const { name, label } of entries) {
      const bytes = await zip.read(name)
      let grey: Awaited<ReturnType<typeof decodeGreyBytes>>
      try {
        grey = await decodeGreyBytes(bytes, name)
      } catch (err) {
        throw new CodebookError(
          'UNDECODABLE_IMAGE',
          `${file}: entry '${name}' is not a decodable image (${(err as Error).message})`,
          { cause: err },
        )
      }
      const pixels = new Float32Array(grey.bytes.length)
      for (let i = 0; i < pixels.length; i++) pixels[i] = grey.bytes[i]! / 255
      images.push({
        pixels,
        width: grey.width,
        height: grey.height,
        label,
        id: images.length,
        gridRow: 0,
        gridCol: 0,
      })
    }
    return { images, files: entries.map((e) => e.name), classes }
  } finally {
    zip.close()
  }
}

function isJunk(name: string): boolean {
  const parts = name.split('/')
  return parts[0] === '__MACOSX' || parts.some((p) => p.startsWith('.'))
}

/** Code-point order, independent of the locale (as image-folder.ts). */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
