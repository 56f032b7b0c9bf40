import { join } from 'node:path'

/** Directories the run service writes to (all absolute, inside `$CODEBOOK_HOME`). */
export interface RunPaths {
  /** `$CODEBOOK_HOME` itself: written as `CODEBOOK_HOME` in stored error messages. */
  home: string
  /** `datasets/`: a ready dataset's vectors are `datasets/<id>/vectors.npy`. */
  datasets: string
  /** `runs/`: `runs/<id>/checkpoint.npy`. */
  runs: string
  /** `vocabularies/`: `vocabularies/<id>.npy`. */
  vocabularies: string
}

/** The vectors of a ready dataset inside the data home. */
export function datasetVectorsPath(paths: RunPaths, datasetId: string): string {
  return join(paths.datasets, datasetId, 'vectors.npy')
}

/** Where a run's checkpoint (the centroids after `checkpointIteration` iterations) is written. */
export function checkpointPath(paths: RunPaths, runId: string): string {
  return join(paths.runs, runId, 'checkpoint.npy')
}

/** Where a vocabulary's centroids (k × d float32 .npy) are written. */
export function vocabularyPath(paths: RunPaths, vocabularyId: string): string {
  return join(paths.vocabularies, `${vocabularyId}.npy`)
}
