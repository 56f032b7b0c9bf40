export {
  CreateDatasetQuery,
  Dataset,
  DatasetEvent,
  DatasetFormat,
  DatasetList,
  DatasetPreview,
  DatasetStatus,
  datasetFormats,
  UploadDataset,
  UploadMetadata,
  VectorDtype,
  VectorStats,
} from './datasets.ts'
export { ErrorBody } from './errors.ts'
export { Health } from './health.ts'
export type { CreateRunInput, RunParams } from './runs.ts'
export {
  CreateRun,
  IterationReport,
  Run,
  RunEvent,
  RunEventList,
  RunEventType,
  RunJoin,
  RunList,
  RunSocketEvent,
  RunStatus,
  runEventTypes,
  runStatuses,
  StageName,
  StageReport,
  stageNames,
  Vocabulary,
  VocabularyExportFormat,
  VocabularyExportJson,
  VocabularyList,
  vocabularyExportFormats,
  WorkerIterationReport,
  WorkerStageReport,
} from './runs.ts'
export type { PlacedNode } from './topology.ts'
export {
  SiteLinks,
  TOPOLOGY_VERSION,
  Topology,
  TopologyCore,
  TopologyNode,
  TopologyRack,
  TopologySite,
  topologyNodes,
} from './topology.ts'
