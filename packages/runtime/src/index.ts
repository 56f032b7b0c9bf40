export { workerApplications } from './applications.ts'
export { allGather } from './collectives/all-gather.ts'
export { allReduceSum, reduceScatterRing } from './collectives/all-reduce.ts'
export { barrier } from './collectives/barrier.ts'
export type { BroadcastAlgorithm, BroadcastOptions, BroadcastResult } from './collectives/broadcast/index.ts'
export { broadcast, broadcastAlgorithms } from './collectives/broadcast/index.ts'
export type { CollectiveOutcome } from './collectives/collective-app.ts'
export {
  CollectiveSpec,
  collectiveApplication,
  collectiveOps,
  runCollectiveOn,
} from './collectives/collective-app.ts'
export { gather } from './collectives/gather.ts'
export type { Group } from './collectives/group.ts'
export type { ReductionBenchOptions, ReductionBenchRow } from './collectives/reduce/bench-reduction.ts'
export { benchReduction, reductionBenchApplication } from './collectives/reduce/bench-reduction.ts'
export { dynamicReduce } from './collectives/reduce/dynamic-reduce.ts'
export type { Pairing, Transfer } from './collectives/reduce/pairing.ts'
export { nonCommutTreeDynPairing, treeDynPairing } from './collectives/reduce/pairing.ts'
export type {
  ReduceOps,
  ReduceToRootResult,
  ReductionChoice,
  TreeReduction,
} from './collectives/reduce/reduce.ts'
export {
  parseReduction,
  reduceToRoot,
  reductionChoices,
  treeReductions,
} from './collectives/reduce/reduce.ts'
export { reductionApplication } from './collectives/reduce/reduce-app.ts'
export type { MemberReduction, ReduceHooks, ReduceInput } from './collectives/reduce/reduce-types.ts'
export { staticReduce } from './collectives/reduce/static-reduce.ts'
export { clusterSumsCombiner } from './collectives/regroup/cluster-sums-combiner.ts'
export type { Combiner, EncodedBlock } from './collectives/regroup/combiner.ts'
export type { Partials } from './collectives/regroup/partials.ts'
export type { AggregationMode, RegroupResult } from './collectives/regroup/regroup.ts'
export {
  aggregationModes,
  combineAtRoot,
  legacyAggregations,
  parseAggregation,
  regroup,
} from './collectives/regroup/regroup.ts'
export type { BroadcastScheduleAlgorithm } from './collectives/schedules/broadcast-schedule.ts'
export { broadcastPlan } from './collectives/schedules/broadcast-schedule.ts'
export type { RegroupSchedules } from './collectives/schedules/regroup-schedule.ts'
export { centroidBlocks, regroupSchedule } from './collectives/schedules/regroup-schedule.ts'
export type { ColumnStats } from './column-stats/run-column-stats.ts'
export { runColumnStats } from './column-stats/run-column-stats.ts'
export { CodebookError, DatasetFormatError, UsageError } from './errors.ts'
export type { HistogramNorm } from './evaluation/bag-of-words.ts'
export { encodeBagOfWords, encodeTriangle } from './evaluation/bag-of-words.ts'
export type {
  EvaluateOptions,
  EvaluationEncoding,
  EvaluationHistograms,
  EvaluationProgress,
  EvaluationResult,
  EvaluationStage,
  GivenVocabulary,
  Misclassified,
  VocabularyEvaluation,
} from './evaluation/evaluate.ts'
export { evaluateVocabularies, readVocabularyFile, vocabularyDimensionError } from './evaluation/evaluate.ts'
export type { LabelledImageSet, LabelledImageSource } from './evaluation/labelled-images.ts'
export { loadLabelledImages } from './evaluation/labelled-images.ts'
export type { BinarySvm, LinearSvmModel, LinearSvmOptions } from './evaluation/linear-svm.ts'
export { predictLinearSvm, trainBinarySvm, trainLinearSvm } from './evaluation/linear-svm.ts'
export type { ClassificationReport } from './evaluation/metrics.ts'
export { classificationReport } from './evaluation/metrics.ts'
export { stratifiedSplit } from './evaluation/split.ts'
export type { DigitsDemoOptions } from './features/digits-demo.ts'
export { buildDigitsDemo, digitLabel } from './features/digits-demo.ts'
export type { DenseHogParams, DenseHogResult, HogParams } from './features/hog.ts'
export { denseHog, hogDescriptor, hogLength } from './features/hog.ts'
export type { ImportOptions, ImportProgress, OpenNpy, ReaderLimits, StoredRows } from './formats/index.ts'
export {
  DEFAULT_MAX_FIELDS,
  DEFAULT_MAX_LINE_BYTES,
  datasetErrorCodes,
  detectFormat,
  importToStore,
  inspectFile,
  openNpy,
  readPictureNames,
  readStoredRows,
  STORE_PICTURE_NAMES,
  writeHogText,
  writeNpy,
} from './formats/index.ts'
export type { Application, HandlerReply, WorkerContext } from './framework/application.ts'
export { defineApplication } from './framework/application.ts'
export type { SpawnWorker } from './framework/spawn.ts'
export { JOIN_TOKEN_ENV, spawnLocalWorker, spawnWorkerEntry, workerCommand } from './framework/spawn.ts'
export type { WorkerOptions } from './framework/worker.ts'
export { runWorker } from './framework/worker.ts'
export type { WorkerPoolOptions, WorkerReply } from './framework/worker-pool.ts'
export { JoinRefusedError, WorkerLostError, WorkerPool } from './framework/worker-pool.ts'
export type { GridOptions, LabelledImage } from './images/grid.ts'
export { loadGridImages } from './images/grid.ts'
export type { GreyImage } from './images/load-image.ts'
export { loadImage } from './images/load-image.ts'
export type { ZipLayout } from './images/zip-images.ts'
export { loadZipImages, zipLayout } from './images/zip-images.ts'
export type { ZipArchive, ZipFileEntry } from './images/zip-reader.ts'
export { MAX_ZIP_ENTRY_BYTES, openZipArchive } from './images/zip-reader.ts'
export type { AccelAssignResult, AccelOptions, AccelState } from './kmeans/accel/accel-state.ts'
export {
  type ApproximateOptions,
  buildCentroidIndex,
  type CentroidIndex,
  createApproximateState,
  DEFAULT_HNSW,
  type HnswOptions,
  type HnswScalar,
  hnswScalars,
} from './kmeans/accel/approximate.ts'
export { createHamerlyState } from './kmeans/accel/hamerly.ts'
export type { PartialSums } from './kmeans/accel/partial-sums.ts'
export { accumulatePartialSums } from './kmeans/accel/partial-sums.ts'
export type { YinyangOptions } from './kmeans/accel/yinyang.ts'
export { createYinyangState } from './kmeans/accel/yinyang.ts'
export type { KmeansAlgorithm, KmeansAlgorithmChoice } from './kmeans/algorithm.ts'
export {
  chooseAlgorithm,
  type KmeansAssignment,
  kmeansAlgorithmChoices,
  kmeansAssignments,
} from './kmeans/algorithm.ts'
export type { BlobOptions } from './kmeans/bench-data.ts'
export { benchData, generateBlobs } from './kmeans/bench-data.ts'
export { checkpointFile, readCheckpoint } from './kmeans/checkpoint.ts'
export type { CentroidEncoding } from './kmeans/encoding/centroid-encoding.ts'
export {
  CENTROID_ENCODING_ERROR,
  CENTROID_ENCODINGS,
  decodeCentroids,
  encodeCentroids,
  encodedBytes,
} from './kmeans/encoding/centroid-encoding.ts'
export { float16BitsToFloat32, float32ToFloat16Bits } from './kmeans/encoding/float16.ts'
export type { InitFromFileRequest, InitMethod } from './kmeans/init/compute-init.ts'
export {
  computeInit,
  DEFAULT_INIT_METHOD,
  INIT_METHODS,
  initFromFile,
  isInitMethod,
} from './kmeans/init/compute-init.ts'
export { INIT_SAMPLE_ROWS, sampleInitRows } from './kmeans/init/init-sample.ts'
export type { KmeansParallelOptions } from './kmeans/init/kmeans-parallel.ts'
export { kmeansParallelInit } from './kmeans/init/kmeans-parallel.ts'
export { kmeansPlusPlus } from './kmeans/init/kmeans-plus-plus.ts'
export type { InitResult } from './kmeans/init/random-init.ts'
export { gatherRows, randomInit, sampleDistinctIndices } from './kmeans/init/random-init.ts'
export { weightedKmeansPlusPlus } from './kmeans/init/weighted-kmeans-plus-plus.ts'
export type { KernelFactory } from './kmeans/kernel-registry.ts'
export { kernelFactory, kernelNames, registerKernel } from './kmeans/kernel-registry.ts'
export type {
  AssignKernel,
  AssignResult,
  DistanceMatrixKernel,
  NearestTwo,
} from './kmeans/kernels/assign-kernel.ts'
export type { AssignGraphVariant } from './kmeans/kernels/onnx-graph.ts'
export { buildAssignModel } from './kmeans/kernels/onnx-graph.ts'
export type { OrtKernel, OrtKernelOptions } from './kmeans/kernels/ort-kernel.ts'
export { centroidNormsSq, createOrtKernel, float32ExpansionErrorBound } from './kmeans/kernels/ort-kernel.ts'
export { assignReference, createReferenceKernel, rowDistanceSq } from './kmeans/kernels/reference-kernel.ts'
export { kmeansApplication } from './kmeans/kmeans-app.ts'
export type { LloydResult } from './kmeans/lloyd-reference.ts'
export { lloydReference } from './kmeans/lloyd-reference.ts'
export type { KmeansData, KmeansRunOptions, KmeansRunResult } from './kmeans/run-kmeans.ts'
export { initToCheckpoint, runKmeans } from './kmeans/run-kmeans.ts'
export { kmeansOptionsOf, threadsPerTaskOf } from './kmeans/run-spec.ts'
export { updateCentroids } from './kmeans/update-centroids.ts'
// The network lab (Linux, root): namespaces, shaped links, broadcasts timed beside the simulator.
export {
  type LabBenchOptions,
  type LabBenchRow,
  type LabBroadcast,
  type LabBroadcastPeer,
  labBroadcastPeers,
  labBroadcasts,
  predictLabBroadcast,
  runLabBenchBroadcast,
} from './lab/bench-broadcast.ts'
export { type LabStatus, labDown, labStatus, labUnavailableReason, labUp } from './lab/lab-net.ts'
export { type LabHost, type LabPlan, type LabSpec, planLab } from './lab/lab-plan.ts'
export { spawnInLab } from './lab/lab-workers.ts'
export type { CommMatrix } from './mapping/comm-matrix.ts'
export { CommMatrixBuilder, commTotals, fromDense, toDense } from './mapping/comm-matrix.ts'
export { messagesFileFor, readCommMatrixNpy, writeCommMatrixNpy } from './mapping/comm-matrix-npy.ts'
export type { MappingPattern, PatternOptions } from './mapping/patterns.ts'
export {
  MAX_KMEANS_PATTERN_PROCESSES,
  mappingPatterns,
  patternMatrix,
  scheduleMatrix,
} from './mapping/patterns.ts'
export { type PlanFile, planNodeNames, readPlanFile } from './mapping/plan-file.ts'
export type {
  MappingPlanner,
  MappingPlanResult,
  MonteCarloSummary,
  PlanMappingOptions,
  PlannedMapping,
} from './mapping/plan-mapping.ts'
export { mappingPlanners, planMapping } from './mapping/plan-mapping.ts'
export type { MappingProblem } from './mapping/problem.ts'
export { mappingCost, mappingProblem, nodesOf, randomConstraints, UNPINNED } from './mapping/problem.ts'
export type { SiteProfile } from './mapping/site-profile.ts'
export {
  builtInProfile,
  builtInProfiles,
  ec2FourRegions,
  loadSiteProfile,
  siteProfileSchema,
  validateProfile,
} from './mapping/site-profile.ts'
export { siteProfileOfTopology } from './mapping/topology-profile.ts'
export { GammaDistribution } from './random/gamma.ts'
export type { Rng } from './random/rng.ts'
export { createRng } from './random/rng.ts'
export { Sfc32 } from './random/sfc32.ts'
export type { RankPlan, ReductionPlan, StaticReductionAlgorithm } from './reductions/plans.ts'
export {
  binomialPlan,
  fibonacciOrder,
  fibonacciPlan,
  fibonacciTreeSize,
  staticReductionPlan,
} from './reductions/plans.ts'
export type { ReductionAlgorithm } from './reductions/study/algorithms.ts'
export {
  createReductionPlayer,
  rankOrderedReductions,
  reductionAlgorithms,
} from './reductions/study/algorithms.ts'
export type { ReductionCosts } from './reductions/study/costs.ts'
export { GammaInstanceCosts, MatrixCosts } from './reductions/study/costs.ts'
export type { GridRow } from './reductions/study/grid.ts'
export { GRID_COMPUTE_RATIOS, GRID_CVS, gridCell } from './reductions/study/grid.ts'
export type { MarkovRow } from './reductions/study/markov.ts'
export { markovCheck, paperTreeDynMean, treeDynExponentialMoments } from './reductions/study/markov.ts'
export type { ReductionPlayer } from './reductions/study/player.ts'
export type { CellMakespans, StudyCell, StudyRow } from './reductions/study/run-study.ts'
export { playCell, summariseCell } from './reductions/study/run-study.ts'
export type { ClusterNetwork, ClusterSpec } from './simulator/cluster-network.ts'
export { buildClusterNetwork } from './simulator/cluster-network.ts'
export { type LabNetworkShape, labClusterSpec, labWindowBytes } from './simulator/lab-cluster.ts'
export type {
  KmeansIterationModel,
  KmeansIterationPrediction,
  KmeansStage,
} from './simulator/predict-kmeans.ts'
export { DEFAULT_MAP_GFLOPS_PER_SLOT, predictKmeansIteration } from './simulator/predict-kmeans.ts'
export type { BroadcastPrediction } from './simulator/simulate-broadcast.ts'
export { simulateBroadcast } from './simulator/simulate-broadcast.ts'
export { clusterFromTopology } from './simulator/topology-cluster.ts'
export type { ChainOrderKind } from './topology/chain-order.ts'
export { chainOrder, chainOrderKinds, rackCrossings } from './topology/chain-order.ts'
export { formatHadoopRackMap, parseHadoopRackMap } from './topology/formats/hadoop.ts'
export { compressHostlist, expandHostlist } from './topology/formats/hostlist.ts'
export type { TopologyImportOptions } from './topology/formats/import-options.ts'
export { formatSlurmTopology, parseSlurmTopology } from './topology/formats/slurm.ts'
export type { TopologyFormat } from './topology/formats/topology-format.ts'
export {
  formatTopology,
  parseTopology,
  readTopologyFile,
  topologyFormatFromPath,
  topologyFormats,
} from './topology/formats/topology-format.ts'
export type { GenerateTopologyOptions } from './topology/generate.ts'
export { generateTopology } from './topology/generate.ts'
export { mappedWorkerRacks, rackOfHost, readTopology, workerRacks } from './topology/load-topology.ts'
export { TopologyValidationError, topologyIssueCode, validateTopology } from './topology/validate-topology.ts'
export type { ByteTotals } from './transport/byte-counters.ts'
export type { DataPlaneOptions, PeerAddress, RecvChunk } from './transport/data-plane.ts'
export { DataPlane, DEFAULT_CHUNK_BYTES, PeerUnreachableError } from './transport/data-plane.ts'
export type { FrameHeader, FrameSink } from './transport/frame.ts'
export { FRAME_HEADER_BYTES, FrameStreamDecoder } from './transport/frame.ts'
