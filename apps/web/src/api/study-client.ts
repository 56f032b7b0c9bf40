import { type CreateStudyInput, Study, StudyList } from '@codebook/shared'
import { request } from './client.ts'

/** `POST /api/studies`: queues a reduction study. */
export function createStudy(input: CreateStudyInput): Promise<Study> {
  return request('POST', '/api/studies', Study, input)
}

/** `GET /api/studies`: every study, newest first. */
export async function listStudies(): Promise<Study[]> {
  return (await request('GET', '/api/studies', StudyList)).studies
}

/** `GET /api/studies/:id`. */
export function getStudy(id: string): Promise<Study> {
  return request('GET', `/api/studies/${encodeURIComponent(id)}`, Study)
}

/** `POST /api/studies/:id/cancel`: answers with the record once the study is cancelled. */
export function cancelStudy(id: string): Promise<Study> {
  return request('POST', `/api/studies/${encodeURIComponent(id)}/cancel`, Study)
}

/** `DELETE /api/studies/:id` (cancels a queued or running study first). */
export async function deleteStudy(id: string): Promise<void> {
  await request('DELETE', `/api/studies/${encodeURIComponent(id)}`, null)
}
