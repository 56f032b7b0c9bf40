import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { CodebookError } from '@codebook/runtime/errors'
import { Dataset } from '@codebook/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../app.ts'
import { childCommand } from '../child/child-command.ts'
import { type RunningServer, startServer } from '../start-server.ts'
import { hogText, makeVectors } from '../test-support/payloads.ts'
import { childPids, isAlive, waitFor } from '../test-support/processes.ts'
import { authHeaders, makeTempHome, TEST_API_TOKEN, testConfig } from '../test-support/test-server.ts'

/** Import temporaries (`.<id>.tmp-…`) and dataset folders under `datasets/`. */
async function datasetEntries(datasetsDir: string): Promise<string[]> {
  return readdir(datasetsDir).catch(() => [])
}

const hasTemporary = async (datasetsDir: string) =>
  (await datasetEntries(datasetsDir)).some((name) => name.includes('.tmp-'))

/**
 * A gzip stream of one line that never ends: 1.5 GiB of "1 " with no newline, as one compressed
 * member of 16 MiB repeated (gunzip reads concatenated members as one stream). ~1.6 MB on disk.
 */
function endlessLineGzip(): Buffer {
  const member = gzipSync(Buffer.alloc(16 * 1024 ** 2, '1 '), { level: 9 })
  return Buffer.concat(Array.from({ length: 96 }, () => member))
}

/** A HOG text big enough that its import is still running when the test acts on it. */
const bigHogText = () => hogText(makeVectors(120_000, 32, 5))

describe('dataset imports run in a child process', () => {
  let home: Awaited<ReturnType<typeof makeTempHome>>
  let server: RunningServer
  beforeAll(async () => {
    home = await makeTempHome()
    server = await startServer(testConfig(home.home, undefined))
  })
  afterAll(async () => {
    await server?.close()
    await home.remove()
  })

  const post = async (name: string, body: Buffer | string, format = 'hog-text') =>
    Dataset.parse(
      await (
        await fetch(`${server.url}/api/datasets?name=${name}&format=${format}`, {
          method: 'POST',
          headers: authHeaders,
          body,
        })
      ).json(),
    )

  it('fails a hostile gzip (one endless line) with a coded error while /api/health keeps answering', async () => {
    const started = await post('endless', endlessLineGzip())
    const latencies: number[] = []
    let settled = false
    const final = server.app.datasets.settled(started.id).finally(() => {
      settled = true
    })
    while (!settled) {
      const t0 = performance.now()
      const res = await fetch(`${server.url}/api/health`)
      expect(res.status).toBe(200)
      await res.arrayBuffer()
      latencies.push(performance.now() - t0)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    const dataset = await final
    expect(dataset.status).toBe('failed')
    // The reader's line bound stops it after ~1 MiB (the child's memory watchdog is the backstop).
    expect(dataset.error?.code).toBe('LINE_TOO_LONG')
    expect(dataset.error?.message).not.toContain(home.home)
    console.log(
      `${dataset.error?.code}: /api/health answered ${latencies.length} times during the import, max ${Math.max(...latencies).toFixed(1)} ms`,
    )
    // Health was asked during the import, more than once (the import can fail within ~0.3 s on an
    // idle machine: 5 answers at a 50 ms pace made a flaky "> 5").
    expect(latencies.length).toBeGreaterThan(2)
    // A correctness bound, not a benchmark: in-process, this import stalls or kills the server.
    expect(Math.max(...latencies)).toBeLessThan(500)
    expect(await hasTemporary(server.app.home.datasets)).toBe(false)
    expect(await readdir(server.app.home.uploads)).toEqual([])
  }, 120_000)

  it('kills the import child on DELETE and leaves no temporary, dataset folder or upload', async () => {
    const started = await post('deleted', bigHogText())
    const datasets = server.app.home.datasets
    await waitFor('the import child', () => server.app.datasets.importPid(started.id) !== undefined)
    const pid = server.app.datasets.importPid(started.id)!
    await waitFor('the import temporary', () => hasTemporary(datasets))
    // Frozen mid-import, so the delete surely meets a running import with files on disk.
    process.kill(pid, 'SIGSTOP')
    const del = await fetch(`${server.url}/api/datasets/${started.id}`, {
      method: 'DELETE',
      headers: authHeaders,
    })
    expect(del.status).toBe(204)
    expect(await isAlive(pid)).toBe(false)
    expect(await datasetEntries(datasets)).toEqual([])
    expect(await readdir(server.app.home.uploads)).toEqual([])
  }, 60_000)
})

describe('a server killed mid-import', () => {
  let home: Awaited<ReturnType<typeof makeTempHome>>
  let proc: ChildProcess | undefined
  beforeAll(async () => {
    home = await makeTempHome()
  })
  afterAll(async () => {
    if (proc?.exitCode === null) proc.kill('SIGKILL')
    await home.remove()
  })

  /** `npm start` from source: main.ts under tsx, as a separate process on `home`. */
  async function startServerProcess(): Promise<{ proc: ChildProcess; url: string }> {
    const main = childCommand(import.meta.url, '../main')
    // PGlite on the home, as the restart below uses: not CI's DATABASE_URL, which other tests share.
    const { DATABASE_URL: _sharedDatabase, ...env } = process.env
    const child = spawn(process.execPath, [...main.execArgv, main.entry], {
      env: {
        ...env,
        CODEBOOK_HOME: home.home,
        PORT: '0',
        HOST: '127.0.0.1',
        CODEBOOK_API_TOKEN: TEST_API_TOKEN,
        CODEBOOK_SEED_DEMO: 'false',
        CODEBOOK_WEB_DIR: '',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const url = await new Promise<string>((resolve, reject) => {
      let out = ''
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString()
        const match = /listening on (http:\/\/[\d.:]+)/.exec(out)
        if (match) resolve(match[1]!)
      })
      child.once('exit', (code) => reject(new Error(`server exited with ${code} before listening`)))
    })
    return { proc: child, url }
  }

  it('leaves no temporary folder or upload once restarted on the same home, and the record says INTERRUPTED', async () => {
    const file = join(home.home, 'big.hog')
    await writeFile(file, bigHogText())
    const { proc: serverProc, url } = await startServerProcess()
    proc = serverProc
    const { readFile } = await import('node:fs/promises')
    const res = await fetch(`${url}/api/datasets?name=big&format=hog-text`, {
      method: 'POST',
      headers: authHeaders,
      body: await readFile(file),
    })
    const started = Dataset.parse(await res.json())
    const datasets = join(home.home, 'datasets')
    await waitFor('the import temporary', () => hasTemporary(datasets))
    const [importChild] = await childPids(serverProc.pid!)
    expect(importChild).toBeDefined()
    // Freeze the child so the import is surely mid-way when its server dies.
    process.kill(importChild!, 'SIGSTOP')
    serverProc.kill('SIGKILL')
    await new Promise((resolve) => serverProc.once('exit', resolve))
    expect(await hasTemporary(datasets)).toBe(true)
    expect((await readdir(join(home.home, 'uploads'))).length).toBeGreaterThan(0)
    // Its server gone, the child notices the closed IPC channel and exits by itself.
    process.kill(importChild!, 'SIGCONT')
    await waitFor('the orphaned import child to exit', async () => !(await isAlive(importChild!)), 20_000, 50)

    // The dead server's home lock goes stale after 10 s.
    let app: Awaited<ReturnType<typeof buildApp>> | undefined
    await waitFor(
      'the home lock to go stale',
      async () => {
        try {
          app = await buildApp(testConfig(home.home, undefined))
          return true
        } catch (err) {
          if (err instanceof CodebookError && err.code === 'HOME_LOCKED') return false
          throw err
        }
      },
      30_000,
      500,
    )
    try {
      expect(await datasetEntries(datasets)).toEqual([])
      expect(await readdir(join(home.home, 'uploads'))).toEqual([])
      const record = Dataset.parse(
        (await app!.inject({ method: 'GET', url: `/api/datasets/${started.id}` })).json(),
      )
      expect(record).toMatchObject({ status: 'failed', error: { code: 'INTERRUPTED' } })
      expect(existsSync(join(datasets, started.id))).toBe(false)
    } finally {
      await app!.close()
    }
  }, 120_000)
})

describe('CODEBOOK_MAX_EXPANDED_BYTES', () => {
  it('fails a gzip of valid rows that expands past the bound with EXPANDED_TOO_LARGE and stores nothing', async () => {
    const home = await makeTempHome()
    const server = await startServer(testConfig(home.home, undefined, { maxExpandedBytes: 1024 ** 2 }))
    try {
      // 4 MB of well-formed rows in a ~100 KB gzip: every line is fine, only the size is not.
      const rows = hogText(makeVectors(20_000, 32, 9))
      expect(rows.length).toBeGreaterThan(4 * 1024 ** 2)
      const res = await fetch(`${server.url}/api/datasets?name=bomb&format=hog-text&wait=true`, {
        method: 'POST',
        headers: authHeaders,
        body: gzipSync(rows),
      })
      expect(res.status).toBe(422)
      const body = (await res.json()) as { code: string; message: string }
      expect(body.code).toBe('EXPANDED_TOO_LARGE')
      expect(body.message).not.toContain(home.home)
      expect(await hasTemporary(server.app.home.datasets)).toBe(false)
      expect(await readdir(server.app.home.uploads)).toEqual([])
    } finally {
      await server.close()
      await home.remove()
    }
  }, 120_000)
})
