import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadConfig, type RunningServer, startServer } from '@codebook/server'

/** Absolute path of the repository root. */
export const repoRoot = fileURLToPath(new URL('../..', import.meta.url))

/** The built web UI the test server serves (built by `turbo run build` before the tests). */
export const webDist = join(repoRoot, 'apps/web/dist')

/** A real Codebook server listening on 127.0.0.1 with its own temporary home. */
export interface TestServer {
  /** Base URL, e.g. `http://127.0.0.1:40123`. */
  url: string
  /** The server's data home (a fresh temp dir). */
  home: string
  /** The API token writes need (`Authorization: Bearer …`). */
  token: string
  /** `url/?token=…`: the first page a browser opens, which hands the UI the token. */
  uiUrl: string
  /** Headers for a write request from the test itself. */
  authHeaders: { authorization: string }
  /** The in-process Fastify app (services such as `app.runs`), for tests that drive the server directly. */
  app: RunningServer['app']
  /** Closes the server and deletes its home. */
  close(): Promise<void>
}

/**
 * Starts a real server in this process on a free port, with a fresh home under the OS temp dir,
 * no demo dataset, quiet logs and the built web UI. `env` adds or overrides environment entries
 * (e.g. `{ CODEBOOK_MAX_UPLOAD_BYTES: '1000' }`).
 */
export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const home = await mkdtemp(join(tmpdir(), 'codebook-e2e-'))
  const token = env.CODEBOOK_API_TOKEN ?? randomBytes(16).toString('hex')
  const config = loadConfig({
    CODEBOOK_API_TOKEN: token,
    PORT: '0',
    HOST: '127.0.0.1',
    CODEBOOK_HOME: home,
    CODEBOOK_SEED_DEMO: 'false',
    CODEBOOK_WEB_DIR: webDist,
    LOG_LEVEL: 'warn',
    ...env,
  })
  let server: Awaited<ReturnType<typeof startServer>>
  try {
    server = await startServer(config)
  } catch (err) {
    await rm(home, { recursive: true, force: true })
    throw err
  }
  return {
    url: server.url,
    home,
    token,
    uiUrl: `${server.url}/?token=${token}`,
    authHeaders: { authorization: `Bearer ${token}` },
    app: server.app,
    async close() {
      await server.close()
      await rm(home, { recursive: true, force: true })
    },
  }
}
