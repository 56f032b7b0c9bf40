import { describe, expect, it } from 'vitest'
import {
  clearPendingUpload,
  isSameFile,
  type KeyValueStorage,
  loadPendingUpload,
  PENDING_UPLOAD_KEY,
  type PendingUpload,
  savePendingUpload,
} from './pending-upload.ts'

function memoryStorage(): KeyValueStorage & { map: Map<string, string> } {
  const map = new Map<string, string>()
  return {
    map,
    getItem: (k) => map.get(k) ?? null,
    setItem: (k, v) => void map.set(k, v),
    removeItem: (k) => void map.delete(k),
  }
}

const record: PendingUpload = {
  name: 'patches',
  format: 'hog-text',
  filename: 'patches.txt',
  size: 29_000_000,
  lastModified: 1_790_000_000_000,
  uploadUrl: 'http://127.0.0.1:8080/files/abc',
  bytesUploaded: 8_388_608,
  startedAt: '2026-11-21T19:00:00.000Z',
}

describe('pending upload record', () => {
  it('round-trips through storage and is gone after clear', () => {
    const storage = memoryStorage()
    expect(loadPendingUpload(storage)).toBeNull()
    savePendingUpload(storage, record)
    expect(loadPendingUpload(storage)).toEqual(record)
    clearPendingUpload(storage)
    expect(loadPendingUpload(storage)).toBeNull()
  })

  it('reads a corrupt or incomplete record as none', () => {
    const storage = memoryStorage()
    storage.map.set(PENDING_UPLOAD_KEY, '{not json')
    expect(loadPendingUpload(storage)).toBeNull()
    storage.map.set(PENDING_UPLOAD_KEY, JSON.stringify({ name: 'x', filename: 'x.txt' }))
    expect(loadPendingUpload(storage)).toBeNull()
  })

  it('never reports more bytes uploaded than the file has', () => {
    const storage = memoryStorage()
    storage.map.set(PENDING_UPLOAD_KEY, JSON.stringify({ ...record, bytesUploaded: record.size + 10 }))
    expect(loadPendingUpload(storage)?.bytesUploaded).toBe(record.size)
  })

  it('matches the same file by name, size and modification time only', () => {
    const same = { name: 'patches.txt', size: record.size, lastModified: record.lastModified }
    expect(isSameFile(record, same)).toBe(true)
    expect(isSameFile(record, { ...same, size: record.size - 1 })).toBe(false)
    expect(isSameFile(record, { ...same, lastModified: record.lastModified + 1 })).toBe(false)
    expect(isSameFile(record, { ...same, name: 'other.txt' })).toBe(false)
  })
})
