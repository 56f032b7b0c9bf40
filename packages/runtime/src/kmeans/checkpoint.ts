import { readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { CodebookError } from '../errors.ts'
import { writeNpy } from '../formats/npy/npy-writer.ts'
import { openNpy } from '../formats/store.ts'

/**
 * A run's checkpoints: `centroids-<i>.npy` in its checkpoint directory holds the centroids after
 * iteration i (0: the init), k × d float32, written atomically by the broadcast root. The
 * driver restarts a failed attempt, and the server resumes a run, from the checkpoint of the last
 * iteration whose reports it took; the root deletes older ones once that iteration is acknowledged.
 */
const NAME = /^centroids-(\d+)\.npy$/

/** The checkpoint file of iteration `iteration` in `dir`. */
export function checkpointFile(dir: string, iteration: number): string {
  return join(dir, `centroids-${iteration}.npy`)
}

/** Writes the checkpoint of iteration `iteration` (atomically: a reader never sees half a file). */
export function writeCheckpoint(
  dir: string,
  iteration: number,
  centroids: Float32Array,
  k: number,
  d: number,
): Promise<void> {
  return writeNpy(checkpointFile(dir, iteration), centroids, k, d)
}

/** The shape of the checkpoint of iteration `iteration` (`KMEANS_NO_CHECKPOINT` when it is missing). */
export async function checkpointShape(dir: string, iteration: number): Promise<{ k: number; d: number }> {
  const f = await openCheckpoint(dir, iteration)
  try {
    return { k: f.n, d: f.d }
  } finally {
    await f.close()
  }
}

/**
 * The centroids of iteration `iteration`'s checkpoint, checked to be k × d.
 * @throws CodebookError `KMEANS_NO_CHECKPOINT`, `KMEANS_CHECKPOINT_MISMATCH`.
 */
export async function readCheckpoint(
  dir: string,
  iteration: number,
  k: number,
  d: number,
): Promise<Float32Array> {
  const f = await openCheckpoint(dir, iteration)
  try {
    if (f.n !== k || f.d !== d)
      throw new CodebookError(
        'KMEANS_CHECKPOINT_MISMATCH',
        `checkpoint of iteration ${iteration} is ${f.n} × ${f.d}, the run expects ${k} × ${d}`,
      )
    const rows = await f.readRows(0, f.n)
    return rows instanceof Float32Array ? rows : Float32Array.from(rows)
  } finally {
    await f.close()
  }
}

/** Deletes the checkpoints of iterations before `iteration` (they can no longer be a restart point). */
export async function pruneCheckpoints(dir: string, iteration: number): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[])
  await Promise.all(
    names.map((name) => {
      const m = NAME.exec(name)
      return m && Number(m[1]) < iteration ? rm(join(dir, name), { force: true }) : undefined
    }),
  )
}

async function openCheckpoint(dir: string, iteration: number) {
  return openNpy(checkpointFile(dir, iteration)).catch((err: unknown) => {
    if (err instanceof CodebookError && err.code === 'FILE_NOT_FOUND')
      throw new CodebookError('KMEANS_NO_CHECKPOINT', `no checkpoint of iteration ${iteration}`)
    throw err
  })
}
