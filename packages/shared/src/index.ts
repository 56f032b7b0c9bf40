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
export { DATASET_ID_HEADER, SOCKET_IO_PATH, TUS_PATH } from './endpoints.ts'
export { ErrorBody } from './errors.ts'
export type { CreateEvaluationInput } from './evaluations.ts'
export {
  CreateEvaluation,
  CreateImageSetQuery,
  Evaluation,
  EvaluationKResult,
  EvaluationList,
  EvaluationParams,
  EvaluationPhase,
  EvaluationProgress,
  evaluationPhases,
  ImageSet,
  ImageSetKind,
  ImageSetList,
  ImageSetStatus,
  imageSetKinds,
  MAX_EVALUATION_VOCABULARIES,
  MisclassifiedImage,
} from './evaluations.ts'
export { Health, ServerLimits } from './health.ts'
export { EntityId, ID_PATTERN, IdParams, INVALID_ID_MESSAGE } from './ids.ts'
export type { JobEventData, JobEventType } from './job-events.ts'
export { jobEventData } from './job-events.ts'
export type { FinalJobStatus } from './jobs.ts'
export {
  finalJobStatuses,
  isFinalJobStatus,
  JobEvent,
  JobEventList,
  JobJoin,
  JobJoinAck,
  JobKind,
  JobLeave,
  JobSocketEvent,
  JobStatus,
  jobKinds,
  jobStatuses,
  LastEventSeq,
} from './jobs.ts'
export {
  PlacedWorker,
  RunLaunch,
  RunLauncher,
  runLaunchers,
  SlurmLaunch,
} from './launchers.ts'
export { LIST_PAGE_DEFAULT, LIST_PAGE_MAX, ListPageQuery, NextBefore } from './list-page.ts'
export { DisplayName, isPrintable, MAX_NAME_CHARS, printableString } from './names.ts'
export { type PlacementPlan, type PlanNodesResult, planNodeNames } from './plan-nodes.ts'
export type { CreatePlanInput, PlanPattern, PlanPlanner, PlanProfile } from './plans.ts'
export {
  CreatePlan,
  DEFAULT_PLAN_AGGREGATION,
  PLAN_LIMITS,
  PlanCost,
  PlanResult,
  planAggregations,
  planPatterns,
  planPlanners,
  planProfiles,
} from './plans.ts'
export type { RunEncoding } from './run-defaults.ts'
export {
  AggregationField,
  hnswBounds,
  hnswScalarTypes,
  legacyAggregationAliases,
  runAggregations,
  runAlgorithms,
  runApproximateSearches,
  runAssignments,
  runBounds,
  runBroadcasts,
  runChainOrders,
  runDefaults,
  runEncodings,
  runPartials,
  runReductions,
} from './run-defaults.ts'
export type { CreateRunInput, RunEventType } from './runs.ts'
export {
  AssignmentFormat,
  assignmentFormats,
  CreateRun,
  DEFAULT_INIT_METHOD,
  InitMethod,
  IterationReport,
  initMethods,
  KmeansSpec,
  Run,
  RunHnsw,
  RunList,
  RunLogData,
  RunParams,
  RunProgressData,
  runEventData,
  runPhases,
  StageName,
  StageReport,
  stageNames,
  Vocabulary,
  VocabularyExportFormat,
  VocabularyExportJson,
  VocabularyList,
  VocabularySummary,
  vocabularyExportFormats,
  WorkerIterationReport,
  WorkerStageReport,
} from './runs.ts'
export type { ClientToServerEvents, ServerToClientEvents } from './socket-events.ts'
export { clientEventSchemas, serverEventSchemas, socketEvents } from './socket-events.ts'
export type { CreateStudyInput, StudyParams } from './studies.ts'
export {
  CreateGridStudy,
  CreateMarkovStudy,
  CreateReductionsStudy,
  CreateStudy,
  FIGURE3_CVS,
  GridCell,
  MarkovResult,
  STUDY_LIMITS,
  Study,
  StudyAlgorithm,
  StudyKind,
  StudyList,
  StudyProgress,
  StudyResults,
  StudyRow,
  studyAlgorithms,
  studyKinds,
} from './studies.ts'
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
export {
  ParseTopologyRequest,
  ParseTopologyResult,
  RenderTopologyRequest,
  RenderTopologyResult,
  SaveTopology,
  SimulateBroadcastRequest,
  SimulateBroadcastResult,
  SimulatedAggregation,
  SimulatedBroadcast,
  SimulatedBroadcastRow,
  SimulatedStage,
  SimulateKmeansRequest,
  SimulateKmeansResult,
  simulatedAggregations,
  simulatedBroadcasts,
  simulatedKmeansStages,
  TOPOLOGY_LIMITS,
  TopologyList,
  TopologyRecord,
  TopologySummary,
  TopologyTextFormat,
  TopologyVersionList,
  TopologyVersionSummary,
  topologyTextFormats,
} from './topology-api.ts'
