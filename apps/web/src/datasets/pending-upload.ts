import type { DatasetFormat } from '@codebook/shared'

/**
 * What the page remembers about the upload in flight, so that after a reload it can say which
 * file to choose again. tus-js-client keeps its own fingerprint → upload URL map; this record is
 * the page's view of it (name, format, how far it got).
 */
export interface PendingUpload {
  /** Dataset name the user chose. */
  name: string
  format: DatasetFormat | null
  filename: string
  size: number
  lastModified: number
  /** The tus upload URL once the server created the upload. */
  uploadUrl: string | null
  /** Bytes the server confirmed (last completed chunk). */
  bytesUploaded: number
  startedAt: string
}

/** The localStorage key of the pending upload record. */
export const PENDING_UPLOAD_KEY = 'codebook:pending-upload'

/** The part of the Web Storage API used here (localStorage in the browser). */
export type KeyValueStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>

/** Reads the pending upload record; a missing or unreadable record reads as null. */
export function loadPendingUpload(storage: KeyValueStorage): PendingUpload | null {
  const raw = storage.getItem(PENDING_UPLOAD_KEY)
  if (raw === null) return null
  try {
    const value = JSON.parse(raw) as Partial<PendingUpload>
    if (
      typeof value.name !== 'string' ||
      typeof value.filename !== 'string' ||
      typeof value.size !== 'number' ||
      typeof value.lastModified !== 'number' ||
      typeof value.bytesUploaded !== 'number'
    ) {
      return null
    }
    return {
      name: value.name,
      format: value.format ?? null,
      filename: value.filename,
      size: value.size,
      lastModified: value.lastModified,
      uploadUrl: typeof value.uploadUrl === 'string' ? value.uploadUrl : null,
      bytesUploaded: Math.min(value.bytesUploaded, value.size),
      startedAt: typeof value.startedAt === 'string' ? value.startedAt : '',
    }
  } catch {
    return null
  }
}

/** Writes the pending upload record. */
export function savePendingUpload(storage: KeyValueStorage, upload: PendingUpload): void {
  storage.setItem(PENDING_UPLOAD_KEY, JSON.stringify(upload))
}

/** Forgets the pending upload record. */
export function clearPendingUpload(storage: KeyValueStorage): void {
  storage.removeItem(PENDING_UPLOAD_KEY)
}

/** Whether `file` is the file of the pending upload: same name, size and modification time (tus's fingerprint). */
export function isSameFile(
  pending: PendingUpload,
  file: { name: string; size: number; lastModified: number },
): boolean {
  return (
    pending.filename === file.name && pending.size === file.size && pending.lastModified === file.lastModified
  )
}
