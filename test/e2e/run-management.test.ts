import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, type TestBrowser } from '../support/browser.ts'
import { writeHogFixture } from '../support/hog-file.ts'
import { startTestServer, type TestServer } from '../support/server.ts'

// Runs as a research log (issue 32), against a real server and a real Chromium: a run created
// through the API appears in an open list without a reload; a run is named, noted and tagged,
// the list filtered and searched, a run cloned into the form, up to 8 runs compared with their
// parameters diffed, per-iteration metrics downloaded, and a run deleted with its vocabulary.

interface RunRecord {
  id: string
  datasetId: string
  status: string
  vocabularyId?: string | null
  name?: string | null
  tags?: string[]
  notes?: string
  params: { k: number; seed: number; encoding: string; maxIterations: number }
}

describe('managing runs in the web UI (Chromium)', () => {
  let server: TestServer
  let browser: TestBrowser
  let dir: string
  let datasetId: string
  const runs: RunRecord[] = []

  const api = async <T>(path: string, init?: { method: string; body?: unknown }): Promise<T> => {
    const res = await fetch(`${server.url}${path}`, {
      method: init?.method ?? 'GET',
      headers: { ...server.authHeaders, 'content-type': 'application/json' },
      body: init?.body === undefined ? undefined : JSON.stringify(init.body),
    })
    expect(res.status, `${init?.method ?? 'GET'} ${path}`).toBeLessThan(300)
    return (await res.json()) as T
  }
  const startRun = async (body: Record<string, unknown>): Promise<RunRecord> =>
    api<RunRecord>('/api/runs', {
      method: 'POST',
      body: { datasetId, maxIterations: 4, workers: 1, kernel: 'reference', tol: 0, ...body },
    })
  const settled = async (run: RunRecord) => (await server.app.runs.settled(run.id)) as RunRecord

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'codebook-e2e-run-management-'))
    const hog = await writeHogFixture(dir, { filename: 'patches.txt', n: 400, d: 8, seed: 32 })
    server = await startTestServer()
    const up = await fetch(`${server.url}/api/datasets?name=patches&format=hog-text&wait=true`, {
      method: 'POST',
      headers: { ...server.authHeaders, 'content-type': 'text/plain' },
      body: await readFile(hog.path),
    })
    expect(up.status).toBe(201)
    datasetId = ((await up.json()) as { id: string }).id
    for (const k of [4, 8, 12]) runs.push(await settled(await startRun({ k, seed: k })))
    browser = await launchBrowser({ baseURL: server.url })
  })

  afterAll(async () => {
    await browser?.close()
    await server?.close()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('shows a run created through the API in an open runs list, without a reload', async () => {
    const { page } = browser
    await page.goto(server.uiUrl)
    await page.goto('/runs')
    for (const r of runs) await page.locator(`tr[data-run-id="${r.id}"]`).waitFor()
    // No reload, no navigation from here on: the list follows run:changed.
    await page.evaluate(() => {
      ;(window as unknown as { marker: number }).marker = 32
    })
    const created = await startRun({ k: 6, seed: 6 })
    await page.locator(`tr[data-run-id="${created.id}"]`).waitFor({ timeout: 15_000 })
    runs.push(await settled(created))
    await page
      .locator(`tr[data-run-id="${created.id}"] [data-status="succeeded"]`)
      .waitFor({ timeout: 30_000 })
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(32)
    expect(await page.getByTestId('runs-count').textContent()).toBe('4 total')
    await browser.screenshot('run-management-01-live-list')
  })

  it('names, notes and tags a run on its page, and the list filters and searches by them', async () => {
    const { page } = browser
    const [a, b] = runs
    for (const [run, name, tags] of [
      [a!, 'baseline k4', 'sweep, best'],
      [b!, 'wider k8', 'sweep'],
    ] as const) {
      await page.goto(`/runs/${run.id}`)
      await page.getByLabel('Name', { exact: true }).fill(name)
      await page.getByLabel('Tags (comma-separated)').fill(tags)
      await page.getByLabel('Notes', { exact: true }).fill(`notes of ${name}\nsecond line`)
      await page.getByRole('button', { name: 'Save', exact: true }).click()
      await page.getByTestId('labels-saved').waitFor()
      await page.getByTestId('run-name').getByText(name).waitFor()
    }
    await browser.screenshot('run-management-02-labels')
    const stored = await api<RunRecord>(`/api/runs/${a!.id}`)
    expect(stored).toMatchObject({
      name: 'baseline k4',
      tags: ['sweep', 'best'],
      notes: 'notes of baseline k4\nsecond line',
    })

    // A bad tag is refused at the form, with the server's bound.
    await page.getByLabel('Tags (comma-separated)').fill('x'.repeat(41))
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    expect(await page.getByTestId('labels-error').textContent()).toContain('at most 40 characters')

    await page.goto('/runs')
    const rows = page.locator('tbody tr[data-run-id]')
    await rows.first().waitFor()
    expect(await rows.count()).toBe(4)
    await page.getByLabel('Tag', { exact: true }).fill('sweep')
    await expect.poll(() => rows.count()).toBe(2)
    await page.getByLabel('Tag', { exact: true }).fill('best')
    await expect.poll(() => rows.count()).toBe(1)
    expect(await rows.first().getAttribute('data-run-id')).toBe(a!.id)
    await page.getByRole('button', { name: 'Clear' }).click()
    await expect.poll(() => rows.count()).toBe(4)
    await page.getByLabel('Search', { exact: true }).fill('WIDER')
    await expect.poll(() => rows.count()).toBe(1)
    expect(await rows.first().getAttribute('data-run-id')).toBe(b!.id)
    await page.getByRole('button', { name: 'Clear' }).click()
    await page.getByLabel('k', { exact: true }).fill('12')
    await expect.poll(() => rows.count()).toBe(1)
    expect(await rows.first().getAttribute('data-run-id')).toBe(runs[2]!.id)
    await page.getByLabel('k', { exact: true }).fill('')
    await page.getByLabel('Status', { exact: true }).selectOption('running')
    await page.getByTestId('runs-none-match').waitFor()
    await page.getByLabel('Status', { exact: true }).selectOption('succeeded')
    await expect.poll(() => rows.count()).toBe(4)
    // Sorted by k, largest first.
    await page.getByLabel('Sort', { exact: true }).selectOption('k-desc')
    await expect
      .poll(async () =>
        (await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-run-id')))).join(),
      )
      .toBe([runs[2]!, runs[1]!, runs[3]!, runs[0]!].map((r) => r.id).join())
    await page.getByLabel('Tag', { exact: true }).fill('sweep')
    await expect.poll(() => rows.count()).toBe(2)
    await browser.screenshot('run-management-03-filtered')
  })

  it('clones a run into the form ("Run again") and starts it with one setting changed', async () => {
    const { page } = browser
    const source = runs[1]!
    await page.goto(`/runs/${source.id}`)
    await page.getByRole('link', { name: 'Run again' }).click()
    await page.waitForURL(/\/runs\?cloneOf=/)
    await page.getByTestId('run-clone-notice').getByText('Settings of run wider k8').waitFor()
    expect(await page.locator('#run-k').inputValue()).toBe('8')
    expect(await page.locator('#run-seed').inputValue()).toBe(String(source.params.seed))
    expect(await page.locator('#run-maxIterations').inputValue()).toBe('4')
    expect(await page.locator('#run-kernel').inputValue()).toBe('reference')
    await page.locator('#run-encoding').selectOption('float16')
    await page.locator('#run-k').fill('10')
    await browser.screenshot('run-management-04-clone-form')
    await page.getByRole('button', { name: 'Start run' }).click()
    await page.waitForURL((url) => /\/runs\/[^/?]+$/.test(url.pathname) && !url.pathname.endsWith(source.id))
    const id = new URL(page.url()).pathname.split('/').pop()!
    const clone = await settled({ id } as RunRecord)
    expect(clone.params).toMatchObject({
      k: 10,
      seed: source.params.seed,
      maxIterations: 4,
      encoding: 'float16',
    })
    expect(clone.status).toBe('succeeded')
    runs.push(clone)
  })

  it('compares up to 8 runs with their parameters diffed, and links their per-iteration metrics', async () => {
    const { page } = browser
    await page.goto('/runs')
    await page.locator('tbody tr[data-run-id]').first().waitFor()
    for (const r of runs.slice(0, 3))
      await page.locator(`tr[data-run-id="${r.id}"] input[type=checkbox]`).check()
    await page.getByRole('link', { name: 'Compare 3 runs' }).click()
    await page.waitForURL(/\/runs\/compare\?ids=/)
    const params = page.getByTestId('compare-params')
    await params.waitFor()
    const k = await params.locator('tr[data-param="k"] td').allInnerTexts()
    // The link keeps the table's order: newest first.
    expect(k).toEqual(['k', '12', '8', '4'])
    expect(await params.locator('tr[data-param="seed"]').count()).toBe(1)
    expect(await params.locator('tr[data-param="kernel"]').count()).toBe(0)
    expect(await page.getByTestId('compare-table').locator('tbody tr').count()).toBe(3)
    await browser.screenshot('run-management-05-compare')

    await page.goto(`/runs/${runs[0]!.id}`)
    const csvHref = await page.getByRole('link', { name: 'iterations.csv' }).getAttribute('href')
    const csv = await (await fetch(`${server.url}${csvHref}`)).text()
    const lines = csv.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^iteration,inertia,reassigned,broadcast_ms,broadcast_bytes,/)
    expect(lines).toHaveLength(5)
    const stored = await api<{ inertia: number }>(`/api/runs/${runs[0]!.id}`)
    expect(Number(lines.at(-1)!.split(',')[1])).toBe(stored.inertia)
    // The inertia on the page is the exact value, not 4 significant figures.
    await page.getByText(String(stored.inertia), { exact: true }).first().waitFor()
    // Peak memory per worker.
    expect(await page.getByTestId('worker-max-rss').first().textContent()).toMatch(/\d.*B$/)
  })

  it('deletes a run after asking about its vocabulary', async () => {
    const { page } = browser
    const victim = runs[2]!
    expect(victim.vocabularyId).toBeTruthy()
    await page.goto(`/runs/${victim.id}`)
    await page.getByRole('button', { name: 'Delete…' }).click()
    const dialog = page.getByRole('dialog')
    await dialog.getByText('Keep it').waitFor()
    await browser.screenshot('run-management-06-delete-dialog')
    await dialog.getByRole('button', { name: 'Delete run and vocabulary' }).click()
    await page.waitForURL(/\/runs$/)
    await page.locator('tbody tr[data-run-id]').first().waitFor()
    expect(await page.locator(`tr[data-run-id="${victim.id}"]`).count()).toBe(0)
    expect((await fetch(`${server.url}/api/runs/${victim.id}`)).status).toBe(404)
    expect((await fetch(`${server.url}/api/vocabularies/${victim.vocabularyId}`)).status).toBe(404)

    // Deleted elsewhere (the API), keeping the vocabulary: the open list drops it live.
    const other = runs[3]!
    await page.locator(`tr[data-run-id="${other.id}"]`).waitFor()
    const res = await fetch(`${server.url}/api/runs/${other.id}?vocabulary=keep`, {
      method: 'DELETE',
      headers: server.authHeaders,
    })
    expect(res.status).toBe(204)
    await page.locator(`tr[data-run-id="${other.id}"]`).waitFor({ state: 'detached', timeout: 15_000 })
    expect((await fetch(`${server.url}/api/vocabularies/${other.vocabularyId}`)).status).toBe(200)
    await browser.screenshot('run-management-07-after-delete')
  })
})
