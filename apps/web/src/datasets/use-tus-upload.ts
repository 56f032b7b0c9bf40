import { DATASET_ID_HEADER, type DatasetFormat, ErrorBody, TUS_PATH } from '@codebook/shared'
import { useCallback, useEffect, useRef, useState } from 'react'
import { type DetailedError, type HttpRequest, type HttpResponse, Upload } from 'tus-js-client'
import { authorizationHeader } from '../api/api-token.ts'
import { getUploadDataset } from '../api/client.ts'
import {
  clearPendingUpload,
  isSameFile,
  loadPendingUpload,
  type PendingUpload,
  savePendingUpload,
} from './pending-upload.ts'
import { createRateMeter } from './rate-meter.ts'

// 8 MiB chunks: large enough that per-request overhead is negligible on a LAN, small enough that an
// interrupted upload loses at most a few seconds of work on a slow link.
const CHUNK_SIZE = 8 * 1024 * 1024
const RETRY_DELAYS = [0, 1_000, 3_000, 5_000, 10_000]

/** Where the upload in flight is. */
export type UploadPhase = 'idle' | 'uploading' | 'finishing' | 'done' | 'failed'

/** Everything the upload panel shows. */
export interface UploadView {
  phase: UploadPhase
  filename: string
  name: string
  bytesSent: number
  bytesTotal: number
  bytesPerSecond: number | null
  etaSeconds: number | null
  /** Offset the server reported when this upload resumed an earlier one; null for a fresh upload. */
  resumedFrom: number | null
  datasetId: string | null
  error: { code: string; message: string } | null
}

const IDLE: UploadView = {
  phase: 'idle',
  filename: '',
  name: '',
  bytesSent: 0,
  bytesTotal: 0,
  bytesPerSecond: null,
  etaSeconds: null,
  resumedFrom: null,
  datasetId: null,
  error: null,
}

/** What the user chose for a new upload. */
export interface UploadRequest {
  name: string
  format: DatasetFormat | null
}

/** The upload controller the Datasets page uses. */
export interface TusUploadController {
  view: UploadView
  /** The record of an upload a previous page load left unfinished, if any. */
  interrupted: PendingUpload | null
  /** Uploads `file`; when it is the interrupted upload's file, resumes it under the name chosen then. */
  start(file: File, request: UploadRequest): void
  /** Stops the upload in flight and deletes what the server received. */
  cancel(): Promise<void>
  /** Forgets the interrupted upload (and asks the server to delete its partial file). */
  discardInterrupted(): void
  /** Returns to idle after a finished or failed upload. */
  reset(): void
}

/** What a tus upload's 401 says: not an interruption but a missing or wrong token. */
export const UPLOAD_NOT_AUTHORISED =
  'Not uploaded: this browser has no accepted API token — paste it in the banner at the top of the page, then choose the file again.'

/**
 * The upload error as the panel shows it. A 401 (no or a wrong token) keeps the server's code
 * (`UNAUTHORIZED` / `INVALID_TOKEN`) and says to paste the token, and `unauthorised` is set so the
 * caller reports it as such rather than as an interrupted upload.
 */
export function describeUploadError(err: Error | DetailedError): {
  code: string
  message: string
  unauthorised: boolean
} {
  const res = 'originalResponse' in err ? err.originalResponse : null
  if (res) {
    let body: { code: string; message: string } | null = null
    try {
      const parsed = ErrorBody.safeParse(JSON.parse(res.getBody()))
      if (parsed.success) body = { code: parsed.data.code, message: parsed.data.message }
    } catch {
      // not a JSON error body; fall through to the generic description
    }
    if (res.getStatus() === 401)
      return { code: body?.code ?? 'UNAUTHORIZED', message: UPLOAD_NOT_AUTHORISED, unauthorised: true }
    if (body) return { ...body, unauthorised: false }
    return {
      unauthorised: false,
      code: `HTTP_${res.getStatus()}`,
      message: `The server refused the upload (status ${res.getStatus()}).`,
    }
  }
  return { code: 'UPLOAD_FAILED', message: err.message, unauthorised: false }
}

/** The last path segment of a tus upload URL is the upload id. */
function uploadIdOf(url: string): string {
  const path = new URL(url, window.location.href).pathname
  return path.slice(path.lastIndexOf('/') + 1)
}

/** Drops tus-js-client's stored fingerprint(s) for an upload URL, so a discarded upload is not resumed. */
function forgetTusFingerprint(uploadUrl: string): void {
  for (let i = localStorage.length - 1; i >= 0; i--) {
    const key = localStorage.key(i)
    if (!key?.startsWith('tus::')) continue
    try {
      if ((JSON.parse(localStorage.getItem(key) ?? '{}') as { uploadUrl?: string }).uploadUrl === uploadUrl) {
        localStorage.removeItem(key)
      }
    } catch {
      // not ours to judge; leave it
    }
  }
}

/**
 * Resumable upload of one file at a time with tus-js-client. The page's own record of the upload
 * lives in localStorage (see pending-upload.ts) so a reload can offer to resume; tus-js-client's
 * fingerprint storage finds the server-side upload when the same file is chosen again.
 * `onRefused` hears a 401 (no or a wrong API token) with the server's code.
 */
export function useTusUpload(
  onDatasetCreated: (datasetId: string) => void,
  onRefused: (code: string, message: string) => void = () => undefined,
): TusUploadController {
  const [view, setView] = useState<UploadView>(IDLE)
  const [interrupted, setInterrupted] = useState<PendingUpload | null>(() => loadPendingUpload(localStorage))
  const uploadRef = useRef<Upload | null>(null)
  const onCreatedRef = useRef(onDatasetCreated)
  onCreatedRef.current = onDatasetCreated
  const onRefusedRef = useRef(onRefused)
  onRefusedRef.current = onRefused

  useEffect(
    () => () => {
      // Leaving the page (not reloading) stops the transfer but keeps the record, so it can resume.
      void uploadRef.current?.abort(false)
    },
    [],
  )

  const start = useCallback((file: File, request: UploadRequest) => {
    if (uploadRef.current) return
    const pending = loadPendingUpload(localStorage)
    const resuming = pending !== null && isSameFile(pending, file)
    const record: PendingUpload = resuming
      ? { ...pending }
      : {
          name: request.name,
          format: request.format,
          filename: file.name,
          size: file.size,
          lastModified: file.lastModified,
          uploadUrl: null,
          bytesUploaded: 0,
          startedAt: new Date().toISOString(),
        }
    savePendingUpload(localStorage, record)
    setInterrupted(null)

    const meter = createRateMeter()
    let datasetId: string | null = null
    let resumedFrom: number | null = null
    // Start the bar where the last page load left it, not at 0, while tus asks the server for the offset.
    setView({
      ...IDLE,
      phase: 'uploading',
      filename: file.name,
      name: record.name,
      bytesSent: record.bytesUploaded,
      bytesTotal: file.size,
    })

    const metadata: Record<string, string> = { name: record.name, filename: file.name }
    if (record.format) metadata.format = record.format

    const upload = new Upload(file, {
      endpoint: TUS_PATH,
      chunkSize: CHUNK_SIZE,
      retryDelays: RETRY_DELAYS,
      metadata,
      storeFingerprintForResuming: true,
      removeFingerprintOnSuccess: true,
      // Read per request: a token pasted after a 401 applies to the retry.
      onBeforeRequest(req: HttpRequest) {
        const auth = authorizationHeader().authorization
        if (auth !== undefined) req.setHeader('Authorization', auth)
      },
      onUploadUrlAvailable() {
        record.uploadUrl = upload.url
        savePendingUpload(localStorage, record)
      },
      onProgress(bytesSent, bytesTotal) {
        const rate = meter.observe(performance.now(), bytesSent, bytesTotal)
        setView((v) => ({ ...v, bytesSent, bytesTotal, ...rate, resumedFrom }))
      },
      onChunkComplete(_chunkSize, bytesAccepted) {
        record.bytesUploaded = bytesAccepted
        savePendingUpload(localStorage, record)
      },
      onAfterResponse(req: HttpRequest, res: HttpResponse) {
        if (req.getMethod() === 'HEAD') {
          const offset = Number.parseInt(res.getHeader('Upload-Offset') ?? '', 10)
          if (Number.isFinite(offset)) {
            resumedFrom = offset
            setView((v) => ({ ...v, bytesSent: offset, resumedFrom: offset }))
          }
        }
        const id = res.getHeader(DATASET_ID_HEADER)
        if (id) datasetId = id
      },
      onSuccess() {
        uploadRef.current = null
        clearPendingUpload(localStorage)
        setView((v) => ({ ...v, phase: 'finishing', bytesSent: v.bytesTotal, etaSeconds: 0 }))
        const linked = datasetId
          ? Promise.resolve(datasetId)
          : getUploadDataset(uploadIdOf(upload.url ?? '')).then((link) => link.datasetId)
        linked.then(
          (id) => {
            setView((v) => ({ ...v, phase: 'done', datasetId: id }))
            onCreatedRef.current(id)
          },
          (err: unknown) => {
            const e = err as { code?: string; message?: string }
            setView((v) => ({
              ...v,
              phase: 'failed',
              error: { code: e.code ?? 'UPLOAD_UNLINKED', message: e.message ?? String(err) },
            }))
          },
        )
      },
      onError(err) {
        uploadRef.current = null
        const { unauthorised, ...error } = describeUploadError(err)
        setView((v) => ({ ...v, phase: 'failed', error }))
        if (unauthorised) {
          onRefusedRef.current(error.code, error.message)
          // Refused at creation: nothing is on the server, so there is nothing to resume.
          if (record.uploadUrl === null) {
            clearPendingUpload(localStorage)
            return
          }
        }
        // The server keeps what it received: offer the same resume path as after a reload.
        setInterrupted(loadPendingUpload(localStorage))
      },
    })
    uploadRef.current = upload

    void upload.findPreviousUploads().then((previous) => {
      if (uploadRef.current !== upload) return // cancelled meanwhile
      const newest = [...previous].sort((a, b) => b.creationTime.localeCompare(a.creationTime))[0]
      if (newest) upload.resumeFromPreviousUpload(newest)
      else if (resuming && record.uploadUrl) upload.options.uploadUrl = record.uploadUrl
      upload.start()
    })
  }, [])

  const cancel = useCallback(async () => {
    const upload = uploadRef.current
    uploadRef.current = null
    clearPendingUpload(localStorage)
    setView(IDLE)
    if (!upload) return
    try {
      await upload.abort(true)
    } catch {
      // The server may not support termination; the partial upload then expires there.
      await upload.abort(false).catch(() => undefined)
    }
    if (upload.url) forgetTusFingerprint(upload.url)
  }, [])

  const discardInterrupted = useCallback(() => {
    const pending = loadPendingUpload(localStorage)
    clearPendingUpload(localStorage)
    setInterrupted(null)
    setView((v) => (v.phase === 'failed' ? IDLE : v))
    if (pending?.uploadUrl) {
      forgetTusFingerprint(pending.uploadUrl)
      Upload.terminate(pending.uploadUrl).catch(() => undefined)
    }
  }, [])

  const reset = useCallback(() => setView(IDLE), [])

  return { view, interrupted, start, cancel, discardInterrupted, reset }
}
