import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { workerCommand } from '@codebook/runtime/collectives'
import { writeNpy } from '@codebook/runtime/formats'
import { createRng } from '@codebook/runtime/kmeans'
import { Dataset } from '@codebook/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, type TestBrowser } from '../support/browser.ts'
import { startTestServer, type TestServer } from '../support/server.ts'

// The run form's launcher choice and the run page of a `join` run in a real Chromium: the page
// shows the command to paste, workers started with it (posing as two hosts) run the run, and
// the page lists each worker's host and rack.

describe('launchers in the run form and on the run page (Chromium)', () => {
  let server: TestServer
  let browser: TestBrowser
  let dir: string
  const workers: ChildProcess[] = []

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'codebook-e2e-launchers-'))
    const file = join(dir, 'x.npy')
    const rng = createRng(4)
    await writeNpy(
      file,
      Float32Array.from({ length: 2000 * 8 }, () => rng.normal()),
      2000,
      8,
    )
    server = await startTestServer({ CODEBOOK_JOIN_HOST: '127.0.0.1' })
    const res = await fetch(`${server.url}/api/datasets?name=x&format=npy&wait=true`, {
      method: 'POST',
      headers: { ...server.authHeaders, 'content-type': 'application/octet-stream' },
      body: await readFile(file),
    })
    expect(Dataset.parse(await res.json()).status).toBe('ready')
    browser = await launchBrowser({ baseURL: server.url })
  })

  afterAll(async () => {
    for (const w of workers) w.kill('SIGKILL')
    await browser?.close()
    await server?.close()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('offers Slurm fields, then runs a join run on workers started with the command the page shows', async () => {
    const { page } = browser
    await page.goto(server.uiUrl)
    await page.waitForURL(/\/datasets/)
    await page.getByRole('link', { name: 'Runs', exact: true }).click()
    await page.waitForURL(/\/runs$/)

    // Slurm: its fields appear, and a time limit sbatch would refuse is named at its field.
    await page.getByLabel('Launcher').selectOption('slurm')
    await page.getByLabel('Partition').fill('batch')
    await page.getByLabel('Time limit').fill('2h')
    await page.locator('[data-field-error="slurmTimeLimit"]').waitFor()
    await browser.screenshot('launchers-01-slurm-form')

    await page.getByLabel('Launcher').selectOption('join')
    await page.getByTestId('join-note').waitFor()
    expect(await page.getByLabel('Partition').count()).toBe(0)
    await page.getByLabel('k (centroids)').fill('4')
    await page.getByLabel('Max iterations').fill('3')
    await page.getByLabel('Workers', { exact: true }).fill('2')
    await page.getByLabel('tol').fill('0')
    await page.getByRole('button', { name: 'Start run' }).click()
    await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/)

    // The run waits for its workers and shows the command to start them with.
    const command = (await page.getByTestId('join-command').textContent())!
    expect(command).toMatch(/^CODEBOOK_JOIN_TOKEN=\S+ codebook worker --join 127\.0\.0\.1:\d+$/)
    await browser.screenshot('launchers-02-waiting')
    const { command: node, args } = workerCommand()
    // As a shell runs it: the assignment goes to the environment, the words after `codebook worker` to the entry.
    const [assignment, , , ...words] = command.split(' ')
    const token = assignment!.slice('CODEBOOK_JOIN_TOKEN='.length)
    for (const host of ['alpha', 'beta'])
      workers.push(
        spawn(node, [...args, ...words, '--host-name', host], {
          stdio: 'ignore',
          env: { ...process.env, CODEBOOK_JOIN_TOKEN: token },
        }),
      )

    await page.locator('h1 [data-status="succeeded"]').waitFor({ timeout: 120_000 })
    // The command is offered only while the run can take workers.
    expect(await page.getByTestId('join-command').count()).toBe(0)
    const hosts = await page
      .getByTestId('launch-workers')
      .locator('tbody tr td:nth-child(2)')
      .allTextContents()
    expect(hosts.sort()).toEqual(['alpha', 'beta'])
    await page.getByTestId('worker-table').waitFor()
    const header = await page.getByTestId('worker-table').locator('thead th').allTextContents()
    const hostColumn = header.indexOf('Host') + 1
    expect(hostColumn).toBeGreaterThan(0)
    const reported = await page
      .getByTestId('worker-table')
      .locator(`tbody tr td:nth-child(${hostColumn})`)
      .allTextContents()
    expect(reported.sort()).toEqual(['alpha', 'beta'])
    await browser.screenshot('launchers-03-succeeded')
  })
})
