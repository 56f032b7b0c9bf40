import {
  type CreateEvaluationInput,
  ErrorBody,
  Evaluation,
  EvaluationList,
  ImageSet,
  ImageSetList,
} from '@codebook/shared'
import type { ImageSetUploadQuery } from '../evaluations/image-set-form.ts'
import { authorizationHeader } from './api-token.ts'
import { ApiError, request } from './client.ts'

/** `GET /api/image-sets`: every labelled image set. */
export async function listImageSets(): Promise<ImageSet[]> {
  return (await request('GET', '/api/image-sets', ImageSetList)).imageSets
}

/**
 * `PUT /api/image-sets?name=…&kind=…[&grid=WxH&rowsPerClass=R]` with the file as the raw body.
 * Answers with the new record (usually `processing`; the list follows it to ready or failed).
 */
export function uploadImageSet(query: ImageSetUploadQuery, file: Blob): Promise<ImageSet> {
  const params = new URLSearchParams({ name: query.name, kind: query.kind })
  if (query.grid !== undefined) params.set('grid', query.grid)
  if (query.rowsPerClass !== undefined) params.set('rowsPerClass', String(query.rowsPerClass))
  return putRaw(`/api/image-sets?${params}`, file, ImageSet)
}

/**
 * A write with a raw file body. `request()` sends JSON bodies only, so this mirrors its contract:
 * the token header, coded errors as `ApiError`, the answer parsed with the shared schema.
 */
async function putRaw<T>(path: string, body: Blob, parser: { parse(value: unknown): T }): Promise<T> {
  let res: Response
  try {
    res = await fetch(path, {
      method: 'PUT',
      headers: {
        accept: 'application/json',
        'content-type': body.type !== '' ? body.type : 'application/octet-stream',
        ...authorizationHeader(),
      },
      body,
    })
  } catch (err) {
    throw new ApiError('NETWORK_ERROR', `Could not reach the server (${String(err)})`, 0)
  }
  const answer: unknown = await res.json().catch(() => null)
  if (!res.ok) {
    const parsed = ErrorBody.safeParse(answer)
    if (parsed.success)
      throw new ApiError(parsed.data.code, parsed.data.message, res.status, parsed.data.reqId)
    throw new ApiError(`HTTP_${res.status}`, `PUT ${path} failed with status ${res.status}`, res.status)
  }
  try {
    return parser.parse(answer)
  } catch (err) {
    throw new ApiError('BAD_RESPONSE', `PUT ${path}: unexpected response shape (${String(err)})`, res.status)
  }
}

/** URL of image `index` of an image set, as a PNG (for `<img src>`). */
export function imageSetImageUrl(imageSetId: string, index: number): string {
  return `/api/image-sets/${encodeURIComponent(imageSetId)}/images/${index}.png`
}

/** `POST /api/evaluations`: queues an evaluation. */
export function createEvaluation(input: CreateEvaluationInput): Promise<Evaluation> {
  return request('POST', '/api/evaluations', Evaluation, input)
}

/** `GET /api/evaluations`: every evaluation, newest first. */
export async function listEvaluations(): Promise<Evaluation[]> {
  return (await request('GET', '/api/evaluations', EvaluationList)).evaluations
}

/** `GET /api/evaluations/:id`. */
export function getEvaluation(id: string): Promise<Evaluation> {
  return request('GET', `/api/evaluations/${encodeURIComponent(id)}`, Evaluation)
}

/** `POST /api/evaluations/:id/cancel`: answers with the record once the evaluation is cancelled. */
export function cancelEvaluation(id: string): Promise<Evaluation> {
  return request('POST', `/api/evaluations/${encodeURIComponent(id)}/cancel`, Evaluation)
}
