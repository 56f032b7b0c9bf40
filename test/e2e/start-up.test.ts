import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, type TestBrowser } from '../support/browser.ts'
import { repoRoot, webDist } from '../support/server.ts'

// Issue 32, item 1: a first start on a busy port must say so in one line and exit 2, and must not
// leave the demo dataset broken: the next start, on the same home, serves the demo ready. The
// server is the built one (`apps/server/dist/main.js`, what `npm start` runs), as its own process.

const token = randomBytes(16).toString('hex')

/** A TCP listener on a free loopback port, standing for "another program". */
async function occupyPort(): Promise<{ server: Server; port: number }> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  return { server, port: address.port }
}

/** Starts the built server on `port` with `home`; its output is collected. */
function startServerProcess(
  home: string,
  port: number,
): { child: ChildProcess; output: () => string; errors: () => string } {
  let output = ''
  let errors = ''
  const child = spawn(process.execPath, [join(repoRoot, 'apps/server/dist/main.js')], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      CODEBOOK_HOME: home,
      // The embedded database under this home, as `npm start` has it (CI exports DATABASE_URL for
      // the other tests' PostgreSQL, whose rows this server would otherwise list).
      DATABASE_URL: '',
      CODEBOOK_API_TOKEN: token,
      CODEBOOK_SEED_DEMO: 'true',
      CODEBOOK_WEB_DIR: webDist,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stdout?.on('data', (b: Buffer) => {
    output += b.toString()
  })
  child.stderr?.on('data', (b: Buffer) => {
    errors += b.toString()
  })
  return { child, output: () => output, errors: () => errors }
}

const exitOf = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))

describe('start-up (issue 32)', () => {
  let home: string
  let server: ChildProcess | undefined
  let browser: TestBrowser | undefined

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'codebook-e2e-start-'))
  })
  afterAll(async () => {
    await browser?.close()
    if (server && server.exitCode === null) {
      server.kill('SIGTERM')
      await exitOf(server)
    }
    await rm(home, { recursive: true, force: true })
  })

  it('a busy port: exit 2 with one line naming PORT; then a normal start serves the demo ready', async () => {
    const blocker = await occupyPort()
    const first = startServerProcess(home, blocker.port)
    const code = await exitOf(first.child)
    await new Promise<void>((resolve) => blocker.server.close(() => resolve()))
    expect(code).toBe(2)
    // One line on stderr, and nothing else: the app is not built, so there is no log and no seeding.
    expect(first.output()).toBe('')
    const lines = first.errors().trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain('PORT_IN_USE')
    expect(lines[0]).toContain(`port ${blocker.port}`)
    expect(lines[0]).toMatch(/PORT=\d+ npm start/)

    // The normal start, on the same home: port 0 (the OS picks a free one as the server listens), so
    // no other process can take the port between the two starts; its URL is in the start-up link.
    const second = startServerProcess(home, 0)
    server = second.child
    await expect
      .poll(() => /Open (http:\/\/127\.0\.0\.1:\d+)\/\?token=/.exec(second.output())?.[1], {
        timeout: 60_000,
        interval: 250,
      })
      .toBeDefined()
    const url = (
      /Open (http:\/\/127\.0\.0\.1:\d+)\/\?token=/.exec(second.output()) as RegExpExecArray
    )[1] as string
    // It is this server: it takes this test's token.
    const check = await fetch(`${url}/api/token/check`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    })
    expect(check.status).toBe(204)
    // The first start's cut-off demo (failed) is replaced by a fresh import that finishes.
    await expect
      .poll(
        async () => {
          const res = await fetch(`${url}/api/datasets`)
          const { datasets } = (await res.json()) as { datasets: { name: string; status: string }[] }
          return datasets.map((d) => `${d.name}: ${d.status}`)
        },
        { timeout: 120_000, interval: 500 },
      )
      .toEqual(['digits demo (HOG): ready'])

    browser = await launchBrowser({ baseURL: url })
    await browser.page.goto(`/?token=${token}`)
    await browser.page.goto('/datasets')
    await expect.poll(() => browser?.page.getByText('digits demo (HOG)').first().isVisible()).toBe(true)
    await browser.screenshot('start-up-demo-after-busy-port')
  }, 240_000)
})
