import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generateTopology } from '@codebook/runtime/topology'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, type TestBrowser } from '../support/browser.ts'
import { type HogFixture, writeHogFixture } from '../support/hog-file.ts'
import { startTestServer, type TestServer } from '../support/server.ts'

// The first hour of a user in the web UI (issue 17), against a real server and a real Chromium:
// opening the plain address without the token, the run form's choices and limits, a run on a
// saved topology, and what the pages say about converged runs, mixed datasets and deleted ones.

interface RunRecord {
  id: string
  datasetId: string
  status: string
  iteration: number
  params: { maxIterations: number; topologyVersion?: number }
}

/** This server's limit, set low so the form's message can only come from `GET /api/limits`. */
const MAX_WORKERS = 3

describe('the first hour in the web UI (Chromium)', () => {
  let server: TestServer
  let browser: TestBrowser
  let dir: string
  let fixture: HogFixture

  const api = async <T>(path: string, init?: { method: string; body?: unknown }): Promise<T> => {
    const res = await fetch(`${server.url}${path}`, {
      method: init?.method ?? 'GET',
      headers: { ...server.authHeaders, 'content-type': 'application/json' },
      body: init?.body === undefined ? undefined : JSON.stringify(init.body),
    })
    expect(res.status, `${init?.method ?? 'GET'} ${path}`).toBeLessThan(300)
    return (await res.json()) as T
  }
  const storedToken = (page: Page) => page.evaluate(() => localStorage.getItem('codebook.apiToken'))
  const title = (page: Page) => page.getByTestId('page-title').textContent()

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'codebook-e2e-first-hour-'))
    fixture = await writeHogFixture(dir, { filename: 'patches.txt', n: 600, d: 8, seed: 17 })
    server = await startTestServer({ CODEBOOK_MAX_WORKERS_PER_RUN: String(MAX_WORKERS) })
    browser = await launchBrowser({ baseURL: server.url })
  })

  afterAll(async () => {
    await browser?.close()
    await server?.close()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('without a token: a read-only banner on every page, a refused upload says so, a wrong token is caught', async () => {
    const { page } = browser
    // The plain address, as typed: no ?token=.
    await page.goto('/')
    await page.waitForURL(/\/datasets$/)
    const banner = page.locator('[data-token-state]')
    await banner.waitFor()
    expect(await banner.getAttribute('data-token-state')).toBe('missing')
    expect(await banner.textContent()).toContain('Read-only — this browser has no API token.')
    expect(await title(page)).toBe('Datasets')
    await browser.screenshot('first-hour-01-read-only-banner')
    for (const path of ['/runs', '/topology', '/evaluations']) {
      await page.goto(path)
      await page.locator('[data-token-state="missing"]').waitFor()
    }
    expect(await title(page)).toBe('Evaluation')

    // The upload is refused by the server (401 at the tus creation): not an "interrupted" upload.
    await page.goto('/datasets')
    await page.getByLabel('Choose a dataset file').setInputFiles(fixture.path)
    await page.getByRole('button', { name: 'Upload', exact: true }).click()
    const refused = page.locator('.upload-card .notice-error')
    await refused.waitFor()
    // Once, in plain words: no HTTP code in the card, no second copy in an error banner.
    expect(await refused.textContent()).toContain('Not uploaded: this browser has no accepted API token')
    expect(await refused.textContent()).not.toContain('UNAUTHORIZED')
    expect(await page.locator('.banner-error').count()).toBe(0)
    expect(await page.getByText('Upload interrupted').count()).toBe(0)
    await browser.screenshot('first-hour-02-upload-not-authorised')

    // A wrong token is checked by the server and not kept.
    await banner.getByLabel('API token').fill(`${server.token}-wrong`)
    await banner.getByRole('button', { name: 'Use token' }).click()
    await page.locator('[data-token-state="rejected"]').waitFor()
    expect(await page.getByTestId('token-reason').textContent()).toBe(
      'That token was refused — it is not this server’s API token.',
    )
    expect(await storedToken(page)).toBeNull()
    await browser.screenshot('first-hour-03-wrong-token')

    // The right one is kept, the banner goes, and a reload checks the stored token silently.
    await banner.getByLabel('API token').fill(server.token)
    await banner.getByRole('button', { name: 'Use token' }).click()
    await banner.waitFor({ state: 'detached' })
    expect(await storedToken(page)).toBe(server.token)
    const checked = page.waitForResponse((r) => r.url().endsWith('/api/token/check'))
    await page.reload()
    expect((await checked).status()).toBe(204)
    await page.getByText('Server ok').waitFor()
    expect(await page.locator('[data-token-state]').count()).toBe(0)

    // Now the upload goes through.
    await page.getByLabel('Choose a dataset file').setInputFiles(fixture.path)
    await page.getByRole('button', { name: 'Upload', exact: true }).click()
    await page
      .locator('tbody tr', { hasText: 'patches' })
      .locator('[data-status="ready"]')
      .waitFor({ timeout: 60_000 })
  })

  it('run form: a saved topology preselected from its page, selects for fixed choices, server limits at the field', async () => {
    const { page } = browser
    // A topology of 2 racks × 2 nodes, saved twice (version 2 is the one we run on).
    const topology = generateTopology({ racks: 2, nodesPerRack: 2, nodeGbps: 1, uplinkGbps: 10 })
    const saved = await api<{ id: string }>('/api/topologies', { method: 'POST', body: { topology } })
    await api(`/api/topologies/${saved.id}/versions`, {
      method: 'POST',
      body: { topology: { ...topology, name: 'two-racks' }, message: 'renamed' },
    })

    await page.goto(`/topology/${saved.id}`)
    await page.getByRole('link', { name: 'Run on this topology' }).click()
    await page.waitForURL(/\/runs\?topology=/)
    expect(await title(page)).toBe('Runs')
    expect(await page.getByLabel('Topology').inputValue()).toBe(saved.id)
    expect(await page.getByLabel('Version').inputValue()).toBe('2')

    // Fixed choices are selects; the kernels are the server's (no free text such as "blas").
    const options = (label: string) =>
      page
        .getByLabel(label, { exact: true })
        .locator('option')
        .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value))
    expect((await options('Kernel')).sort()).toEqual(['auto', 'int8', 'onnx', 'reference'])
    // `auto`: int8 for uint8 data at large k, else onnx (decided by each worker).
    expect(await page.getByLabel('Kernel', { exact: true }).inputValue()).toBe('auto')
    expect(await options('Broadcast')).toEqual(['chain', 'simple', 'mst', 'bucket'])
    expect(await options('Algorithm')).toEqual(['lloyd', 'hamerly', 'yinyang', 'auto'])

    // Limits at the field, before any request: the server's max workers, the topology's nodes, k ≤ n.
    const fieldError = (name: string) => page.locator(`[data-field-error="${name}"]`)
    await page.getByLabel('Workers').fill(String(MAX_WORKERS + 1))
    expect(await fieldError('workers').textContent()).toBe(
      `Workers must be at most ${MAX_WORKERS} (this server's limit per run)`,
    )
    await page.getByLabel('k (centroids)').fill(String(fixture.n + 1))
    expect(await fieldError('k').textContent()).toBe(`k must be at most n = ${fixture.n}`)
    await browser.screenshot('first-hour-04-run-form-limits')
    expect(await page.getByRole('button', { name: 'Start run' }).isDisabled()).toBe(false)
    await page.getByRole('button', { name: 'Start run' }).click()
    expect(await page.getByRole('button', { name: 'Start run' }).isDisabled()).toBe(true)
    expect(page.url()).toMatch(/\/runs\?topology=/)

    // A run that stops on tol long before its iteration limit.
    await page.getByLabel('Workers').fill('2')
    await page.getByLabel('k (centroids)').fill('4')
    await page.getByLabel('Max iterations').fill('50')
    await page.getByLabel('tol').fill('0.5')
    await page.getByLabel('Kernel', { exact: true }).selectOption('reference')
    await page.getByRole('button', { name: 'Start run' }).click()
    await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/)
    const runId = page.url().split('/').pop()!
    expect(await title(page)).toBe('Run')
    await page.locator('h1 [data-status="succeeded"]').waitFor({ timeout: 120_000 })
    const record = await api<RunRecord>(`/api/runs/${runId}`)
    expect(record.params.topologyVersion).toBe(2)
    expect(record.iteration).toBeLessThan(record.params.maxIterations)
    expect(await page.getByTestId('run-topology').textContent()).toBe('topology two-racks v2')

    // Log lines are numbered 1, 2, 3… although iteration events sit between them in the event seq.
    await page.getByTestId('run-log').locator('.log-line').first().waitFor()
    const numbers = await page.getByTestId('run-log').locator('.log-seq').allTextContents()
    expect(numbers.length).toBeGreaterThan(2)
    expect(numbers).toEqual(numbers.map((_, i) => String(i + 1)))
    await browser.screenshot('first-hour-05-run-on-topology')

    // The runs list says why it stopped.
    await page.goto('/runs')
    const row = page.locator(`tr[data-run-id="${runId}"]`)
    await row.locator('[data-status="succeeded"]').waitFor()
    expect(await row.locator('.tag-converged').textContent()).toBe('converged')
    await browser.screenshot('first-hour-06-runs-converged')
  })

  it('compare warns when the datasets differ; deleting a dataset names its runs, whose pages show it deleted', async () => {
    const { page } = browser
    const first = (await api<{ runs: RunRecord[] }>('/api/runs')).runs[0]!
    // A second dataset, and a run on it, through the API.
    const other = await fetch(`${server.url}/api/datasets?name=other-patches&format=hog-text&wait=true`, {
      method: 'POST',
      headers: server.authHeaders,
      body: Array.from({ length: 40 }, (_, i) => `0 ${i} 0 ${(i % 5) / 5} ${(i % 3) / 3} 0.5\n`).join(''),
    })
    expect(other.status).toBe(201)
    const otherId = ((await other.json()) as { id: string }).id
    const second = await api<RunRecord>('/api/runs', {
      method: 'POST',
      body: { datasetId: otherId, k: 3, maxIterations: 5, workers: 1, kernel: 'reference' },
    })
    await page.goto('/runs')
    await page
      .locator(`tr[data-run-id="${second.id}"] [data-status="succeeded"]`)
      .waitFor({ timeout: 120_000 })

    await page.getByLabel(`Compare run ${first.id.slice(0, 8)}`).check()
    await page.getByLabel(`Compare run ${second.id.slice(0, 8)}`).check()
    await page.getByRole('link', { name: 'Compare 2 runs' }).click()
    const warning = page.getByTestId('compare-dataset-warning')
    await warning.waitFor()
    expect(await title(page)).toBe('Compare runs')
    const text = await warning.textContent()
    expect(text).toContain('2 different datasets')
    expect(text).toContain(`patches: ${first.id.slice(0, 8)}`)
    expect(text).toContain(`other-patches: ${second.id.slice(0, 8)}`)
    await browser.screenshot('first-hour-07-compare-datasets-differ')

    // Delete the second dataset from its page: the confirmation names the run that used it.
    await page.goto(`/datasets/${otherId}`)
    expect(await title(page)).toBe('Dataset')
    const question = new Promise<string>((resolve) =>
      page.once('dialog', (dialog) => {
        resolve(dialog.message())
        void dialog.accept()
      }),
    )
    await page.getByRole('button', { name: 'Delete' }).click()
    expect(await question).toContain(`1 run uses it: ${second.id.slice(0, 8)} (succeeded).`)
    await page.waitForURL(/\/datasets$/)

    await page.goto(`/runs/${second.id}`)
    const dataset = page.locator('[data-testid="run-dataset"][data-deleted="true"]')
    await dataset.waitFor()
    expect(await dataset.textContent()).toBe(`dataset ${otherId.slice(0, 8)} (deleted)`)
    await browser.screenshot('first-hour-08-run-dataset-deleted')
  })
})
