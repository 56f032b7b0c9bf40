import {
  type CreateRunInput,
  Dataset,
  DatasetList,
  DatasetPreview,
  ErrorBody,
  Health,
  type JobEvent,
  JobEventList,
  Run,
  RunList,
  ServerLimits,
  UploadDataset,
} from '@codebook/shared'
import { authorizationHeader } from './api-token.ts'

/** Anything with a zod-style `parse`; every response body goes through one before the UI sees it. */
interface Parser<T> {
  parse(value: unknown): T
}

/**
 * An error answer of the API (`{ code, message, reqId }`), or a failure to reach it.
 * Codes the client itself produces: NETWORK_ERROR (no answer), BAD_RESPONSE (an answer that
 * does not match the shared schema).
 */
export class ApiError extends Error {
  override readonly name = 'ApiError'
  readonly code: string
  readonly status: number
  readonly reqId: string | undefined

  constructor(code: string, message: string, status: number, reqId?: string) {
    super(message)
    this.code = code
    this.status = status
    this.reqId = reqId
  }
}

export async function request<T>(
  method: string,
  path: string,
  parser: Parser<T> | null,
  body?: unknown,
): Promise<T> {
  let res: Response
  try {
    // Reads stay anonymous; every write carries the API token when this browser has one.
    const auth = method === 'GET' ? {} : authorizationHeader()
    res = await fetch(
      path,
      body === undefined
        ? { method, headers: { accept: 'application/json', ...auth } }
        : {
            method,
            headers: { accept: 'application/json', 'content-type': 'application/json', ...auth },
            body: JSON.stringify(body),
          },
    )
  } catch (err) {
    throw new ApiError('NETWORK_ERROR', `Could not reach the server (${String(err)})`, 0)
  }
  const text = await res.text()
  let answer: unknown = null
  if (text !== '') {
    try {
      answer = JSON.parse(text)
    } catch {
      throw new ApiError(
        'BAD_RESPONSE',
        `${method} ${path} answered ${res.status} with a non-JSON body`,
        res.status,
      )
    }
  }
  if (!res.ok) {
    const parsed = ErrorBody.safeParse(answer)
    if (parsed.success)
      throw new ApiError(parsed.data.code, parsed.data.message, res.status, parsed.data.reqId)
    throw new ApiError(`HTTP_${res.status}`, `${method} ${path} failed with status ${res.status}`, res.status)
  }
  if (parser === null) return undefined as T
  try {
    return parser.parse(answer)
  } catch (err) {
    throw new ApiError(
      'BAD_RESPONSE',
      `${method} ${path}: unexpected response shape (${String(err)})`,
      res.status,
    )
  }
}

/** `GET /api/health`: server status, version and database kind. */
export function getHealth(): Promise<Health> {
  return request('GET', '/api/health', Health)
}

/** `GET /api/limits`: what this server enforces on a run (max workers, kernels…). */
export function getServerLimits(): Promise<ServerLimits> {
  return request('GET', '/api/limits', ServerLimits)
}

/**
 * `POST /api/token/check` with `token` (not the stored one): resolves when the server accepts it,
 * throws the server's `ApiError` (401 `INVALID_TOKEN`…) when not. Changes nothing on the server.
 */
export async function checkApiToken(token: string): Promise<void> {
  let res: Response
  try {
    res = await fetch('/api/token/check', {
      method: 'POST',
      headers: { accept: 'application/json', authorization: `Bearer ${token.trim()}` },
    })
  } catch (err) {
    throw new ApiError('NETWORK_ERROR', `Could not reach the server (${String(err)})`, 0)
  }
  if (res.ok) return
  const parsed = ErrorBody.safeParse(await res.json().catch(() => null))
  if (parsed.success) throw new ApiError(parsed.data.code, parsed.data.message, res.status, parsed.data.reqId)
  throw new ApiError(
    `HTTP_${res.status}`,
    `POST /api/token/check failed with status ${res.status}`,
    res.status,
  )
}

/** `GET /api/datasets`: every dataset, newest first as the server orders them. */
export async function listDatasets(): Promise<Dataset[]> {
  return (await request('GET', '/api/datasets', DatasetList)).datasets
}

/** `GET /api/datasets/:id`. */
export function getDataset(id: string): Promise<Dataset> {
  return request('GET', `/api/datasets/${encodeURIComponent(id)}`, Dataset)
}

/** `GET /api/datasets/:id/preview?rows=N`: the first rows and the dataset's statistics. */
export function getDatasetPreview(id: string, rows: number): Promise<DatasetPreview> {
  return request('GET', `/api/datasets/${encodeURIComponent(id)}/preview?rows=${rows}`, DatasetPreview)
}

/** `DELETE /api/datasets/:id`: removes the record and its files. */
export function deleteDataset(id: string): Promise<void> {
  return request('DELETE', `/api/datasets/${encodeURIComponent(id)}`, null)
}

/** `GET /api/uploads/:uploadId`: the dataset a finished tus upload became. */
export function getUploadDataset(uploadId: string): Promise<UploadDataset> {
  return request('GET', `/api/uploads/${encodeURIComponent(uploadId)}`, UploadDataset)
}

/** `POST /api/runs`: queues a K-means run. */
export function createRun(input: CreateRunInput): Promise<Run> {
  return request('POST', '/api/runs', Run, input)
}

/** `GET /api/runs`: every run, newest first. */
export async function listRuns(): Promise<Run[]> {
  return (await request('GET', '/api/runs', RunList)).runs
}

/** `GET /api/runs/:id`. */
export function getRun(id: string): Promise<Run> {
  return request('GET', `/api/runs/${encodeURIComponent(id)}`, Run)
}

/** `POST /api/runs/:id/cancel`: answers once the run is cancelled. */
export function cancelRun(id: string): Promise<void> {
  return request('POST', `/api/runs/${encodeURIComponent(id)}/cancel`, null)
}

/**
 * `GET /api/runs/:id/events?after=SEQ`: stored events with seq > after, in order, read page by
 * page (the server answers at most `limit` per request).
 */
export async function listRunEvents(id: string, after: number): Promise<JobEvent[]> {
  const all: JobEvent[] = []
  let from = after
  for (;;) {
    const page = (
      await request(
        'GET',
        `/api/runs/${encodeURIComponent(id)}/events?after=${from}&limit=${EVENTS_PAGE}`,
        JobEventList,
      )
    ).events
    all.push(...page)
    if (page.length < EVENTS_PAGE) return all
    from = page[page.length - 1]!.seq
  }
}

const EVENTS_PAGE = 2000

/** `POST /api/runs/:id/resume`: queues an interrupted, cancelled or failed run again from its checkpoint. */
export function resumeRun(id: string): Promise<Run> {
  return request('POST', `/api/runs/${encodeURIComponent(id)}/resume`, Run)
}
