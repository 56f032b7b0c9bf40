import { createServer } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { buildApp } from './app.ts'
import type { Config } from './config.ts'

/** A listening server. */
export interface RunningServer {
  app: FastifyInstance
  /** Base URL to reach the server from this machine, e.g. `http://127.0.0.1:8080`. */
  url: string
  /** Stops accepting requests, settles running imports, closes the database and releases the home lock. */
  close(): Promise<void>
}

const wildcardHosts = new Set(['0.0.0.0', '::', '127.0.0.1', 'localhost', '::1'])

/** Rejects with the listen error (EADDRINUSE, EACCES) if `host:port` cannot be bound right now. */
function probePort(port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(port, host, () => probe.close(() => resolve()))
  })
}

/**
 * Builds the app and listens on `config.host:config.port` (port 0 picks a free port). A port
 * that is taken fails before the app is built, so a failed start seeds nothing and logs nothing.
 */
export async function startServer(config: Config): Promise<RunningServer> {
  if (config.port !== 0) await probePort(config.port, config.host)
  const app = await buildApp(config)
  try {
    await app.listen({ port: config.port, host: config.host })
  } catch (err) {
    await app.close()
    throw err
  }
  const address = app.server.address()
  const port = typeof address === 'object' && address !== null ? address.port : config.port
  const host = wildcardHosts.has(config.host)
    ? '127.0.0.1'
    : config.host.includes(':')
      ? `[${config.host}]`
      : config.host
  return { app, url: `http://${host}:${port}`, close: () => app.close() }
}
