import { statfs } from 'node:fs/promises'
import { ChildJobError } from '../child/child-job.ts'

/**
 * Free disk an import never takes by default (on CODEBOOK_HOME's file system): room for the
 * database, logs and the runs' files. An import may use the free space above it.
 */
export const DISK_RESERVE_BYTES = 1024 ** 3

/** Bytes an unprivileged process may still write on the file system holding `dir`. */
export async function freeBytes(dir: string): Promise<number> {
  const s = await statfs(dir)
  return s.bavail * s.bsize
}

/** What an import may write: the free space of its file system above the reserve. */
export interface DiskRoom {
  free: number
  reserve: number
  /** `free - reserve`, at least 0. */
  usable: number
}

/** Measures the room of an import writing under `dir`. */
export async function diskRoom(dir: string, reserve: number): Promise<DiskRoom> {
  const free = await freeBytes(dir)
  return { free, reserve, usable: Math.max(0, free - reserve) }
}

/** `INSUFFICIENT_SPACE`: `lead` says what did not fit, the numbers follow (never a path). */
export function insufficientSpace(room: DiskRoom, lead: string): ChildJobError {
  return new ChildJobError(
    'INSUFFICIENT_SPACE',
    `${lead} (${room.free} bytes free on the data disk, ${room.reserve} kept in reserve); free some space and upload again; nothing was stored`,
  )
}
