import { readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'

/**
 * Prefix of the temporaries an import of `datasetId` writes beside its folder: the runtime's
 * `tempSibling` names them `.<id>.tmp-<pid>-<random>`.
 */
function temporaryPrefix(datasetId: string): string {
  return `.${datasetId}.tmp-`
}

/** The dataset id a temporary entry of `datasets/` belongs to, or undefined for anything else. */
function ownerOfTemporary(entry: string): string | undefined {
  const match = /^\.(.+)\.tmp-[^/]*$/.exec(entry)
  return match?.[1]
}

/**
 * Removes what an import of `datasetId` may leave in `datasetsDir` when its process is killed:
 * the dataset's folder and every temporary sibling. Only for an import that is not running.
 */
export async function removeImportLeftovers(datasetsDir: string, datasetId: string): Promise<void> {
  const prefix = temporaryPrefix(datasetId)
  const entries = await readdir(datasetsDir).catch(() => [] as string[])
  await Promise.all([
    rm(join(datasetsDir, datasetId), { recursive: true, force: true }),
    ...entries
      .filter((name) => name.startsWith(prefix))
      .map((name) => rm(join(datasetsDir, name), { recursive: true, force: true })),
  ])
}

/**
 * Removes every import temporary in `datasetsDir` whose dataset is not `running` (after a crash,
 * the ones no record points at any more). Resolves with the number removed.
 */
export async function removeTemporaries(
  datasetsDir: string,
  running: (datasetId: string) => boolean,
): Promise<number> {
  const entries = await readdir(datasetsDir).catch(() => [] as string[])
  const stale = entries.filter((name) => {
    const owner = ownerOfTemporary(name)
    return owner !== undefined && !running(owner)
  })
  await Promise.all(stale.map((name) => rm(join(datasetsDir, name), { recursive: true, force: true })))
  return stale.length
}

/**
 * Removes the files in `uploadsDir` whose names start with one of `prefixes`: uploads a request
 * was streaming, or an import was reading, when the server died (their records, if any, are
 * settled already). Call at start, before the server takes requests. Resolves with the number removed.
 */
export async function removeStrayUploads(uploadsDir: string, prefixes: readonly string[]): Promise<number> {
  const entries = await readdir(uploadsDir).catch(() => [] as string[])
  const stray = entries.filter((name) => prefixes.some((prefix) => name.startsWith(prefix)))
  await Promise.all(stray.map((name) => rm(join(uploadsDir, name), { recursive: true, force: true })))
  return stray.length
}
