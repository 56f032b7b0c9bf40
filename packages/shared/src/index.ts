export {
  CreateDatasetQuery,
  Dataset,
  DatasetEvent,
  DatasetFormat,
  DatasetList,
  DatasetPreview,
  DatasetStatus,
  datasetFormats,
  UploadMetadata,
  VectorDtype,
  VectorStats,
} from './datasets.ts'
export { ErrorBody } from './errors.ts'
export { Health } from './health.ts'
