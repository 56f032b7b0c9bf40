import { join } from 'node:path'
import { checkpointFile } from '@codebook/runtime/kmeans'

/** Directories the run service writes to (all absolute, inside `$CODEBOOK_HOME`). */
export interface RunPaths {
  /** `$CODEBOOK_HOME` itself: written as `CODEBOOK_HOME` in stored error messages. */
  home: string
  /** `datasets/`: a ready dataset's vectors are `datasets/<id>/vectors.npy`. */
  datasets: string
  /** `runs/`: `runs/<id>/centroids-<i>.npy`, the run's checkpoint after iteration i. */
  runs: string
  /** `vocabularies/`: `vocabularies/<id>.npy`. */
  vocabularies: string
}

/** The vectors of a ready dataset inside the data home. */
export function datasetVectorsPath(paths: RunPaths, datasetId: string): string {
  return join(paths.datasets, datasetId, 'vectors.npy')
}

/** A run's checkpoint after `iteration` iterations (written by the run's root worker). */
export function checkpointPath(paths: RunPaths, runId: string, iteration: number): string {
  return checkpointFile(join(paths.runs, runId), iteration)
}

/** Where a vocabulary's centroids (k × d float32 .npy) are written. */
export function vocabularyPath(paths: RunPaths, vocabularyId: string): string {
  return join(paths.vocabularies, `${vocabularyId}.npy`)
}
