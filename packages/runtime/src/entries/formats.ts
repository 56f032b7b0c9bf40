// @codebook/runtime/formats — vector files in and out: the dataset store, .npy, picture names.
export type { ImportOptions, ImportProgress, OpenNpy, ReaderLimits, StoredRows } from '../formats/index.ts'
export {
  datasetErrorCodes,
  detectFormat,
  importToStore,
  inspectFile,
  openNpy,
  readPictureNames,
  readStoredRows,
  STORE_PICTURE_NAMES,
  writeNpy,
} from '../formats/index.ts'
