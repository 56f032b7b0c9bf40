import { stat } from 'node:fs/promises'
import { IterationReport, VocabularyExportFormat, VocabularyList } from '@codebook/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ApiError } from '../http/api-error.ts'
import { exportContentTypes, exportFileName, exportVocabulary } from './vocabulary-export.ts'

const IdParams = z.object({ id: z.string().min(1) })

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

/** REST routes of learned vocabularies under `/api`: list and streamed export. */
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
    async () => ({ vocabularies: await app.runs.vocabularies() }),
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
      const { vocabulary, file } = await app.runs.vocabulary(request.params.id)
      // Checked before the headers go out: a missing file is a 404, not a truncated download.
      const size = await stat(file).then(
        (s) => s.size,
        () => {
          throw new ApiError(
            404,
            'VOCABULARY_FILE_MISSING',
            `the centroids file of vocabulary ${vocabulary.id} is missing`,
          )
        },
      )
      const run = await app.runs.get(vocabulary.runId)
      const history = format === 'json' ? inertiaHistory(await app.runs.events(run.id, 0)) : []
      reply
        .header('content-type', exportContentTypes[format])
        .header('content-disposition', `attachment; filename="${exportFileName(vocabulary.id, format)}"`)
      if (format === 'npy') reply.header('content-length', size)
      return reply.send(exportVocabulary({ vocabulary, file, run, inertiaHistory: history }, format))
    },
  )
}
