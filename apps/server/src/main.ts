import { CodebookError } from '@codebook/runtime/errors'
import type { ApiToken } from './auth/api-token.ts'
import { loadConfig } from './config.ts'
import { startServer } from './start-server.ts'

/**
 * Prints the link that hands the token to a browser (the UI keeps it) at every start, to stdout
 * only: the terminal of whoever started the server, never the log or an HTTP answer.
 */
function announceApiToken(apiToken: ApiToken, url: string): void {
  const where = apiToken.source === 'env' ? 'set by CODEBOOK_API_TOKEN' : `kept in ${apiToken.file}`
  const created = apiToken.source === 'created' ? 'API token created' : 'API token'
  process.stdout.write(
    `\n${created} (${where}).\n` +
      `Open ${url}/?token=${apiToken.token} to write from this browser; scripts send "Authorization: Bearer <token>".\n\n`,
  )
}

/**
 * `npm start`: config from the environment, listen, and shut down gracefully on SIGINT/SIGTERM
 * (running imports are settled, the database closed and the home lock released). A second
 * signal exits at once.
 */
async function main(): Promise<void> {
  const config = loadConfig(process.env)
  let server: Awaited<ReturnType<typeof startServer>>
  try {
    server = await startServer(config)
  } catch (err) {
    if ((err as NodeJS.ErrnoException)?.code !== 'EADDRINUSE') throw err
    // Exit 2 with one line, not a stack: the usual first-start problem, with its remedy.
    const next = config.port === 0 ? 8080 : config.port + 1
    process.stderr.write(
      `codebook server: PORT_IN_USE: port ${config.port} on ${config.host} is taken by another program; start on another with PORT=${next} npm start\n`,
    )
    process.exit(2)
  }
  server.app.log.info({ home: config.home }, `Codebook server listening on ${server.url}`)
  announceApiToken(server.app.apiToken, server.url)
  let stopping = false
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      server.app.log.warn(`${signal} again: exiting without waiting`)
      process.exit(1)
    }
    stopping = true
    server.app.log.info(`${signal}: shutting down`)
    server.close().then(
      () => process.exit(0),
      (err: unknown) => {
        server.app.log.error({ err }, 'shutdown failed')
        process.exit(1)
      },
    )
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}

main().catch((err: unknown) => {
  const text =
    err instanceof CodebookError ? `${err.code}: ${err.message}` : String((err as Error)?.stack ?? err)
  process.stderr.write(`codebook server: ${text}\n`)
  process.exit(1)
})
