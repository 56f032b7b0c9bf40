import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import {
  AssignmentFormat,
  ErrorBody,
  IdParams,
  IterationReport,
  VocabularyExportFormat,
  VocabularyList,
  VocabularySummary,
} from '@codebook/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ApiError } from '../http/api-error.ts'
import { exportContentTypes, exportFileName, exportVocabulary } from './vocabulary-export.ts'

const AssignmentsQuery = z.object({
  format: AssignmentFormat.default('npy').describe('npy | csv'),
})

const errors = { 404: ErrorBody, 409: ErrorBody, 503: ErrorBody }

const assignmentContentTypes: Record<AssignmentFormat, string> = {
  npy: 'application/octet-stream',
  csv: 'text/csv; charset=utf-8',
}

const ExportQuery = z.object({
  format: VocabularyExportFormat.default('npy').describe('npy | fvecs | csv | json'),
})

/** Inertia of iteration 1, 2, … from a run's iteration events (a re-reported iteration keeps its last value). */
function inertiaHistory(events: { type: string; data: unknown }[]): number[] {
  const byIteration = new Map<number, number>()
  for (const e of events) {
    if (e.type !== 'iteration') continue
    const report = IterationReport.safeParse(e.data)
    if (report.success) byIteration.set(report.data.iteration, report.data.inertia)
  }
  return [...byIteration.entries()].sort((a, b) => a[0] - b[0]).map(([, inertia]) => inertia)
}

/** A file's size; a missing file is a 404 with `code`, answered before any header of a download goes out. */
function sizeOr404(file: string, code: string, message: string): Promise<number> {
  return stat(file).then(
    (s) => s.size,
    () => {
      throw new ApiError(404, code, message)
    },
  )
}

/** REST routes of learned vocabularies under `/api`: list, detail, delete, streamed export and assignments. */
export const vocabularyRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/vocabularies',
    {
      schema: {
        summary: 'List learned vocabularies, newest first',
        tags: ['vocabularies'],
        response: { 200: VocabularyList },
      },
    },
    async () => ({ vocabularies: await app.vocabularies.list() }),
  )

  app.get(
    '/vocabularies/:id',
    {
      schema: {
        summary: 'One vocabulary with its run, dataset and sizes on disk',
        tags: ['vocabularies'],
        params: IdParams,
        response: { 200: VocabularySummary, ...errors },
      },
    },
    async (request) => app.vocabularies.get(request.params.id),
  )

  app.delete(
    '/vocabularies/:id',
    {
      schema: {
        summary: 'Delete a vocabulary: its record, centroids and cached assignments (the run stays)',
        tags: ['vocabularies'],
        params: IdParams,
        response: { 204: z.null(), ...errors },
      },
    },
    async (request, reply) => {
      await app.vocabularies.remove(request.params.id)
      return reply.code(204).send(null)
    },
  )

  app.get(
    '/vocabularies/:id/assignments',
    {
      schema: {
        summary:
          "Each dataset vector's nearest word and squared distance (with its ids), as npy or csv; computed on first request, then cached",
        tags: ['vocabularies'],
        params: IdParams,
        querystring: AssignmentsQuery,
        // No response schema: the body is a file stream.
      },
    },
    async (request, reply) => {
      const { format } = request.query
      const files = await app.vocabularies.assignments(request.params.id)
      const file = files[format]
      const size = await sizeOr404(
        file,
        'VOCABULARY_NOT_FOUND',
        `vocabulary ${request.params.id} was deleted meanwhile`,
      )
      const name = `assignments-${request.params.id.replace(/[^A-Za-z0-9-]/g, '_')}.${format}`
      return reply
        .header('content-type', assignmentContentTypes[format])
        .header('content-disposition', `attachment; filename="${name}"`)
        .header('content-length', size)
        .send(createReadStream(file))
    },
  )

  app.get(
    '/vocabularies/:id/export',
    {
      schema: {
        summary: 'Download a vocabulary as npy, fvecs, csv or json (streamed attachment)',
        tags: ['vocabularies'],
        params: IdParams,
        querystring: ExportQuery,
        // No response schema: the body is a stream (errors still answer with the usual ErrorBody).
      },
    },
    async (request, reply) => {
      const { format } = request.query
      const { vocabulary, file, origin } = await app.runs.vocabulary(request.params.id)
      // Checked before the headers go out: a missing file is a 404, not a truncated download.
      const size = await sizeOr404(
        file,
        'VOCABULARY_FILE_MISSING',
        `the centroids file of vocabulary ${vocabulary.id} is missing`,
      )
      // A vocabulary kept when its run was deleted exports what it kept of the run.
      const run =
        origin === null
          ? await app.runs.get(vocabulary.runId)
          : { id: vocabulary.runId, params: origin.params, datasetId: origin.datasetId }
      const history =
        format !== 'json'
          ? []
          : origin === null
            ? inertiaHistory(await app.runs.events(run.id, 0))
            : origin.inertiaHistory
      reply
        .header('content-type', exportContentTypes[format])
        .header('content-disposition', `attachment; filename="${exportFileName(vocabulary.id, format)}"`)
      if (format === 'npy') reply.header('content-length', size)
      return reply.send(exportVocabulary({ vocabulary, file, run, inertiaHistory: history }, format))
    },
  )
}
