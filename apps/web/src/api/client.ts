import {
  type CreateRunInput,
  Dataset,
  DatasetList,
  DatasetPreview,
  ErrorBody,
  Health,
  type JobEvent,
  JobEventList,
  LIST_PAGE_MAX,
  Run,
  RunIterations,
  RunList,
  type RunListQuery,
  ServerLimits,
  type UpdateRun,
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
  for (let attempt = 1; ; attempt++) {
    res = await send(method, path, body)
    // A read refused by the server's bounds (429 TOO_MANY_READS, 503 SERVER_BUSY) is tried again
    // after its Retry-After, a few times: a burst of the page's own reads should not show an error.
    const retryAfter = res.headers.get('retry-after')
    const wait = retryAfter === null ? Number.NaN : Number(retryAfter)
    const refusedRead = method === 'GET' && (res.status === 429 || res.status === 503)
    if (!refusedRead || !(wait >= 0) || attempt > READ_RETRIES) break
    await new Promise((resolve) => setTimeout(resolve, Math.min(wait, 5) * 1000 * attempt))
  }
  return answerOf(res, method, path, parser)
}

/** Times a refused read is tried again (see {@link request}). */
const READ_RETRIES = 3

async function send(method: string, path: string, body: unknown): Promise<Response> {
  try {
    // Reads stay anonymous; every write carries the API token when this browser has one.
    const auth = method === 'GET' ? {} : authorizationHeader()
    return await fetch(
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
}

async function answerOf<T>(
  res: Response,
  method: string,
  path: string,
  parser: Parser<T> | null,
): Promise<T> {
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

/**
 * Every record of a paginated list (`GET path?limit&before`, see docs/api.md): its pages one after
 * the other, each of the largest size, following `nextBefore` until the last.
 */
export async function readAllPages<P extends { nextBefore: string | null }, T>(
  path: string,
  parser: Parser<P>,
  items: (page: P) => T[],
  filters = '',
): Promise<T[]> {
  const all: T[] = []
  let before: string | null = null
  do {
    const query: string = before === null ? '' : `&before=${encodeURIComponent(before)}`
    const page: P = await request('GET', `${path}?limit=${LIST_PAGE_MAX}${filters}${query}`, parser)
    all.push(...items(page))
    before = page.nextBefore
  } while (before !== null)
  return all
}

/** `GET /api/datasets`: every dataset, newest first as the server orders them. */
export function listDatasets(): Promise<Dataset[]> {
  return readAllPages('/api/datasets', DatasetList, (page) => page.datasets)
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

/** The filters of `GET /api/runs` (each optional, AND-ed by the server). */
export type RunFilters = Partial<Omit<RunListQuery, 'limit' | 'before'>>

/** `&name=value` for each filter given. */
export function runFilterQuery(filters: RunFilters): string {
  return Object.entries(filters)
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => `&${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join('')
}

/** `GET /api/runs`: every run matching `filters`, newest first. */
export function listRuns(filters: RunFilters = {}): Promise<Run[]> {
  return readAllPages('/api/runs', RunList, (page) => page.runs, runFilterQuery(filters))
}

/** `PATCH /api/runs/:id`: a run's name, notes or tags. */
export function updateRun(id: string, labels: UpdateRun): Promise<Run> {
  return request('PATCH', `/api/runs/${encodeURIComponent(id)}`, Run, labels)
}

/** `DELETE /api/runs/:id?vocabulary=keep|delete` (a running run is cancelled first). */
export function deleteRun(id: string, vocabulary: 'keep' | 'delete'): Promise<void> {
  return request('DELETE', `/api/runs/${encodeURIComponent(id)}?vocabulary=${vocabulary}`, null)
}

/** The download link of a run's per-iteration metrics. */
export function runIterationsHref(id: string, format: 'csv' | 'json'): string {
  return `/api/runs/${encodeURIComponent(id)}/iterations?format=${format}`
}

/** `GET /api/runs/:id/iterations` (json). */
export function getRunIterations(id: string): Promise<RunIterations> {
  return request('GET', runIterationsHref(id, 'json'), RunIterations)
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
