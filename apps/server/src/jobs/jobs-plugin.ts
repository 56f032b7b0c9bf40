import { type IterationReport, type JobEvent, type JobKind, socketEvents } from '@codebook/shared'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { createJobFeed, type JobFeed } from './job-feed.ts'
import { attachJobSocket, type JobEventPublisher } from './job-socket.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The one event feed of stored jobs (runs, evaluations, studies): stored, then sent to joined sockets. */
    jobFeed: JobFeed
    /** Sends stored job events to the sockets that joined the job (`job:join`); the feed calls it per event. */
    jobEvents: JobEventPublisher
  }
}

async function jobsPluginImpl(app: FastifyInstance): Promise<void> {
  // Each kind's service reads its backlog (404 `<KIND>_NOT_FOUND` for an unknown job); the services
  // are registered after this plugin, so they are looked up per read.
  const services = {
    run: () => app.runs,
    evaluation: () => app.evaluations,
    study: () => app.studies,
  } satisfies Record<
    JobKind,
    () => { events(id: string, after: number, limit?: number): Promise<JobEvent[]> }
  >
  const socket = attachJobSocket(
    app.io,
    (kind, id, after, limit) => services[kind]().events(id, after, limit),
    app.log,
  )
  const feed = createJobFeed(
    app.db,
    (kind, id, event) => {
      if (kind === 'run' && event.type === 'iteration')
        app.metrics.observeIteration(event.data as IterationReport)
      // Every client's run lists follow runs created or changed anywhere (API, CLI, another tab).
      if (kind === 'run' && event.type === 'state')
        app.io.emit(socketEvents.runChanged, { id, change: 'state' })
      socket.publish(kind, id, event)
    },
    app.log,
  )
  app.decorate('jobFeed', feed)
  app.decorate('jobEvents', socket)
}

/** Decorates `app.jobFeed` and wires `job:join` / `job:leave` on socket.io. */
export const jobsPlugin = fp(jobsPluginImpl, {
  name: 'codebook-jobs',
  fastify: '5.x',
  dependencies: ['codebook-db', 'codebook-realtime'],
})
