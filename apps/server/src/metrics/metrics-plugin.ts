import { type IterationReport, stageNames } from '@codebook/shared'
import { count, eq } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import { datasets, evaluations, runs } from '../db/schema.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** Prometheus metrics of this server; `GET /metrics` exposes them. */
    metrics: ServerMetrics
  }
}

/** What the rest of the server feeds into the metrics. */
export interface ServerMetrics {
  readonly registry: Registry
  /** Records one finished K-means iteration: its total and per-stage critical-path times. */
  observeIteration(report: IterationReport): void
}

// Seconds: from a sub-millisecond API read to a multi-minute large-k iteration.
const SECONDS_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300]

/**
 * Prometheus metrics (prom-client, one registry per app so that test servers do not share
 * counters): Node's defaults (event-loop lag, heap, CPU, handles), HTTP latency by matched route,
 * background jobs by kind and state (queue lengths are the `queued` ones), live worker processes,
 * and K-means iteration and stage durations. Registered early so its hook times every request;
 * the gauges read the database and the run service only when scraped.
 */
async function metricsPluginImpl(app: FastifyInstance): Promise<void> {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: 'codebook_' })

  const httpSeconds = new Histogram({
    name: 'codebook_http_request_duration_seconds',
    help: 'HTTP request latency by method, matched route and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: SECONDS_BUCKETS,
    registers: [registry],
  })
  app.addHook('onResponse', async (request, reply) => {
    // The matched route pattern, never the raw URL: ids would make unbounded label values.
    const route = request.routeOptions.url ?? 'unmatched'
    httpSeconds.observe(
      { method: request.method, route, status_code: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    )
  })

  const iterationSeconds = new Histogram({
    name: 'codebook_run_iteration_duration_seconds',
    help: 'K-means iteration time: the sum of its five stages’ critical paths',
    buckets: SECONDS_BUCKETS,
    registers: [registry],
  })
  const stageSeconds = new Histogram({
    name: 'codebook_run_stage_duration_seconds',
    help: 'K-means stage time (the slowest worker’s) by stage',
    labelNames: ['stage'] as const,
    buckets: SECONDS_BUCKETS,
    registers: [registry],
  })

  new Gauge({
    name: 'codebook_jobs',
    help: 'Background jobs by kind (run, evaluation, import) and state; the queued ones are the queue lengths',
    labelNames: ['kind', 'state'] as const,
    registers: [registry],
    async collect() {
      this.reset()
      const tables = { run: runs, evaluation: evaluations, import: datasets } as const
      for (const [kind, table] of Object.entries(tables)) {
        const rows = await app.db
          .select({ state: table.status, n: count() })
          .from(table)
          .groupBy(table.status)
        for (const row of rows) this.set({ kind, state: row.state }, row.n)
      }
    },
  })
  new Gauge({
    name: 'codebook_workers',
    help: 'Worker processes alive for running runs',
    registers: [registry],
    async collect() {
      const running = await app.db.select({ id: runs.id }).from(runs).where(eq(runs.status, 'running'))
      this.set(running.reduce((sum, r) => sum + app.runs.workerPids(r.id).length, 0))
    },
  })

  app.decorate('metrics', {
    registry,
    observeIteration(report: IterationReport) {
      let total = 0
      for (const stage of stageNames) {
        const ms = report.stages[stage]?.ms ?? 0
        total += ms
        stageSeconds.observe({ stage }, ms / 1000)
      }
      iterationSeconds.observe(total / 1000)
    },
  } satisfies ServerMetrics)
}

/** Registers `app.metrics`; {@link metricsRoutes} serves them. */
export const metricsPlugin = fp(metricsPluginImpl, { name: 'codebook-metrics' })

/** `GET /metrics` in Prometheus's text format (a read: open like every read). */
export async function metricsRoutes(app: FastifyInstance): Promise<void> {
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.type(app.metrics.registry.contentType)
    return app.metrics.registry.metrics()
  })
}
