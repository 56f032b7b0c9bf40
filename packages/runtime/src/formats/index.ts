export { detectFormat, formatFromName } from './detect.ts'
export { datasetErrorCodes } from './error-codes.ts'
export { formatFloat32, writeHogText } from './hog-text.ts'
export type { ReaderLimits } from './limits.ts'
export { DEFAULT_MAX_FIELDS, DEFAULT_MAX_LINE_BYTES } from './limits.ts'
export { writeNpy } from './npy/npy-writer.ts'
export { readPictureNames, STORE_PICTURE_NAMES } from './picture-names.ts'
export type { ImportOptions, ImportProgress, OpenNpy, StoredRows } from './store.ts'
export {
  convertToNpy,
  idsPathFor,
  importToStore,
  inspectFile,
  openNpy,
  pictureNamesPathFor,
  readStoredRows,
} from './store.ts'
