import {
  type AssignmentFormat,
  type VocabularyExportFormat,
  VocabularyList,
  type VocabularySummary,
} from '@codebook/shared'
import { request } from './client.ts'

/** `GET /api/vocabularies`: every vocabulary, newest first. */
export async function listVocabularies(): Promise<VocabularySummary[]> {
  return (await request('GET', '/api/vocabularies', VocabularyList)).vocabularies
}

/** `DELETE /api/vocabularies/:id`: the record, centroids and cached assignments (the run stays). */
export function deleteVocabulary(id: string): Promise<void> {
  return request('DELETE', `/api/vocabularies/${encodeURIComponent(id)}`, null)
}

/** Link of a vocabulary download (a plain GET: reads need no token). */
export function vocabularyExportHref(id: string, format: VocabularyExportFormat): string {
  return `/api/vocabularies/${encodeURIComponent(id)}/export?format=${format}`
}

/** Link of the assignments download; the server computes them on the first request. */
export function assignmentsHref(id: string, format: AssignmentFormat): string {
  return `/api/vocabularies/${encodeURIComponent(id)}/assignments?format=${format}`
}

/** `GET /api/datasets/:id/picture-names`: line i names the `.npy` assignments' picture index i. */
export function pictureNamesHref(datasetId: string): string {
  return `/api/datasets/${encodeURIComponent(datasetId)}/picture-names`
}
