import { readdir, stat } from 'node:fs/promises'
import { extname, join } from 'node:path'
import { CodebookError } from '../errors.ts'
import type { LabelledImage } from './grid.ts'
import { loadImage } from './load-image.ts'

/** File extensions read as images (compared case-insensitively). */
export const IMAGE_EXTENSIONS: readonly string[] = ['.png', '.jpg', '.jpeg']

/** Images of a folder, with the class names their labels index. */
export interface ImageFolder {
  images: LabelledImage[]
  /** The file each image came from, parallel to `images`. */
  files: string[]
  /** Class names in label order (the sub-folder names, sorted). */
  classes: string[]
}

/**
 * Loads a folder of PNG/JPEG images laid out one sub-folder per class: label i is the i-th
 * sub-folder name in sorted (code-point) order, so the labels do not depend on the file system's
 * listing order. Image files directly in `dir` are loaded too, unlabelled (label null), first.
 * Ids are assigned in load order: top-level files, then each class in order, files sorted by name.
 * Throws `NO_IMAGES` when nothing is found and `IMAGE_UNREADABLE` for a file that does not decode.
 */
export async function loadImageFolder(dir: string): Promise<ImageFolder> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => compare(a.name, b.name))
  const groups: { label: number | null; files: string[] }[] = []
  groups.push({
    label: null,
    files: entries.filter((e) => isImageFile(e.name) && e.isFile()).map((e) => join(dir, e.name)),
  })
  const classes = entries.filter((e) => e.isDirectory()).map((e) => e.name)
  for (const [label, name] of classes.entries()) {
    const sub = (await readdir(join(dir, name))).filter(isImageFile).sort(compare)
    const files: string[] = []
    for (const f of sub) {
      const path = join(dir, name, f)
      if ((await stat(path)).isFile()) files.push(path)
    }
    groups.push({ label, files })
  }
  const images: LabelledImage[] = []
  const files: string[] = []
  for (const { label, files: group } of groups) {
    for (const file of group) {
      const { pixels, width, height } = await loadImage(file)
      images.push({ pixels, width, height, label, id: images.length, gridRow: 0, gridCol: 0 })
      files.push(file)
    }
  }
  if (images.length === 0) {
    throw new CodebookError(
      'NO_IMAGES',
      `${dir}: no ${IMAGE_EXTENSIONS.join('/')} files, neither directly nor in class sub-folders`,
    )
  }
  return { images, files, classes }
}

function isImageFile(name: string): boolean {
  return IMAGE_EXTENSIONS.includes(extname(name).toLowerCase())
}

/** Code-point order, independent of the locale, so labels are the same on every machine. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
