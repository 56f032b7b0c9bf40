import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page, Request } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, type TestBrowser } from '../support/browser.ts'
import { type HogFixture, writeHogFixture } from '../support/hog-file.ts'
import { startTestServer, type TestServer } from '../support/server.ts'

// The Datasets page against a real server (in-process, fresh home, PGlite) in a real Chromium:
// tus upload, socket.io progress, statistics and preview, and resuming an upload after a reload.

interface ListedDataset {
  id: string
  name: string
  status: string
  n: number | null
  d: number | null
}

async function listDatasets(server: TestServer): Promise<ListedDataset[]> {
  const res = await fetch(`${server.url}/api/datasets`)
  expect(res.status).toBe(200)
  return ((await res.json()) as { datasets: ListedDataset[] }).datasets
}

/** The current value (0..100) of the progress bar labelled `label`, or null when it is not shown. */
async function progressValue(page: Page, label: string): Promise<number | null> {
  const bar = page.getByRole('progressbar', { name: label })
  if ((await bar.count()) === 0) return null
  const value = await bar.first().getAttribute('aria-valuenow')
  return value === null ? null : Number(value)
}

describe('Datasets page (Chromium)', () => {
  let server: TestServer
  let browser: TestBrowser
  let dir: string

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'codebook-e2e-files-'))
    server = await startTestServer()
    browser = await launchBrowser({ baseURL: server.url })
  })

  afterAll(async () => {
    await browser?.close()
    await server?.close()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('uploads a HOG text file, follows it to ready and shows its statistics and first rows', async () => {
    const fixture = await writeHogFixture(dir, { filename: 'patches-small.txt', n: 3000, d: 64, seed: 11 })
    const { page } = browser

    // The first visit hands the UI the API token and takes it out of the address bar.
    await page.goto(server.uiUrl)
    await page.waitForURL(/\/datasets$/)
    await page.getByText('Server ok').waitFor()
    await page.getByText('No datasets yet.').waitFor()
    await browser.screenshot('datasets-01-empty')

    await page.getByLabel('Choose a dataset file').setInputFiles(fixture.path)
    expect(await page.getByLabel('Name').inputValue()).toBe('patches-small')
    await page.getByLabel('Format').selectOption('hog-text')
    await browser.screenshot('datasets-02-file-chosen')
    await page.getByRole('button', { name: 'Upload', exact: true }).click()

    // The upload finishes, the server names the dataset, and the row follows it to ready.
    await page.getByText('as dataset').waitFor()
    const row = page.locator('tbody tr', { hasText: 'patches-small' })
    await row.locator('[data-status="ready"]').waitFor({ timeout: 60_000 })
    await browser.screenshot('datasets-03-ready')
    const cells = await row.locator('td').allInnerTexts()
    expect(cells.slice(2, 6)).toEqual(['hog-text', '3,000', '64', 'float32'])

    const [listed] = (await listDatasets(server)).filter((d) => d.name === 'patches-small')
    expect(listed).toMatchObject({ status: 'ready', n: fixture.n, d: fixture.d })

    await row.click()
    await page.waitForURL(`**/datasets/${listed!.id}`)
    await page.getByRole('heading', { name: 'Norm distribution' }).waitFor()
    // ECharts draws into a canvas inside each chart box.
    await page.locator('.chart canvas').first().waitFor()
    expect(await page.locator('.chart canvas').count()).toBeGreaterThanOrEqual(2)
    expect(await page.locator('.stat-card', { hasText: 'Vectors (n)' }).textContent()).toContain('3,000')

    await expectPreviewMatches(page, fixture)
    await browser.screenshot('datasets-04-detail')
  })

  it('resumes an interrupted upload after a reload from where the server stopped', async () => {
    // ~29 MB: four 8 MiB tus chunks. Throttled to 6 MB/s so a reload lands mid-upload.
    const fixture = await writeHogFixture(dir, { filename: 'patches-large.txt', n: 36_000, d: 128, seed: 23 })
    const { page, context } = browser
    const cdp = await context.newCDPSession(page)
    await cdp.send('Network.enable')
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: 6_000_000,
    })
    const patches: Array<{ phase: 'first' | 'resumed'; offset: number }> = []
    let phase: 'first' | 'resumed' = 'first'
    const onRequest = (request: Request) => {
      if (request.method() === 'PATCH' && request.url().includes('/files/')) {
        patches.push({ phase, offset: Number(request.headers()['upload-offset']) })
      }
    }
    page.on('request', onRequest)

    await page.goto('/datasets')
    await page.getByLabel('Choose a dataset file').setInputFiles(fixture.path)
    await page.getByRole('button', { name: 'Upload', exact: true }).click()
    await expect
      .poll(() => progressValue(page, 'Upload progress'), { timeout: 60_000 })
      .toBeGreaterThanOrEqual(40)
    await browser.screenshot('datasets-05-uploading')

    await page.reload()
    phase = 'resumed'
    await page.getByText('Upload interrupted — choose the same file to resume.').waitFor()
    await browser.screenshot('datasets-06-interrupted')

    await page.getByLabel('Choose a dataset file').setInputFiles(fixture.path)
    // The bar starts where the last page load left it, then the server's offset confirms it.
    expect(await progressValue(page, 'Upload progress')).toBeGreaterThan(0)
    const resumedFrom = Number(await page.locator('[data-resumed-from]').getAttribute('data-resumed-from'))
    expect(resumedFrom).toBeGreaterThan(0)
    expect(resumedFrom).toBeLessThan(fixture.bytes)
    await browser.screenshot('datasets-07-resumed')

    const row = page.locator('tbody tr', { hasText: 'patches-large' })
    await row.locator('[data-status="ready"]').waitFor({ timeout: 90_000 })
    page.off('request', onRequest)
    await cdp.detach()

    // The resumed session sent only what the server lacked: every PATCH after the reload starts past 0.
    // (Not necessarily at resumedFrom: the aborted request may still be landing, and tus re-asks after a 409.)
    const resumed = patches.filter((p) => p.phase === 'resumed')
    expect(resumed.length).toBeGreaterThan(0)
    expect(Math.min(...resumed.map((p) => p.offset))).toBeGreaterThan(0)
    // One dataset, with every row: nothing lost or doubled at the seam.
    const listed = (await listDatasets(server)).filter((d) => d.name === 'patches-large')
    expect(listed).toHaveLength(1)
    expect(listed[0]).toMatchObject({ status: 'ready', n: fixture.n, d: fixture.d })
    await browser.screenshot('datasets-08-resumed-ready')
  })

  it('shows why an import failed, reports API errors in a dismissible banner, and deletes after confirming', async () => {
    const { page } = browser
    // Line 2 has one value too few: the server's parser must reject the file and say where.
    await page.goto('/datasets')
    // Dropped onto the drop zone this time, not picked.
    const dataTransfer = await page.evaluateHandle(() => {
      const transfer = new DataTransfer()
      transfer.items.add(
        new File(['0 0 0 0.1 0.2 0.3\n0 0 1 0.4 0.5\n'], 'broken-rows.txt', { type: 'text/plain' }),
      )
      return transfer
    })
    await page.locator('.dropzone').dispatchEvent('drop', { dataTransfer })
    expect(await page.getByLabel('Name').inputValue()).toBe('broken-rows')
    await page.getByRole('button', { name: 'Upload', exact: true }).click()
    const row = page.locator('tbody tr', { hasText: 'broken-rows' })
    await row.locator('[data-status="failed"]').waitFor({ timeout: 30_000 })
    const [failed] = (await listDatasets(server)).filter((d) => d.name === 'broken-rows')
    const detail = (await (await fetch(`${server.url}/api/datasets/${failed!.id}`)).json()) as {
      error: { code: string; message: string }
    }
    expect(await row.locator('.code-tag').textContent()).toBe(detail.error.code)
    // The upload card follows the import: failed with the reason and a link, never "Uploaded … OK".
    const outcome = page.locator('[data-testid="upload-outcome"][data-status="failed"]')
    await outcome.waitFor()
    expect(await outcome.textContent()).toContain('could not be imported')
    expect(await outcome.textContent()).toContain(detail.error.code)
    expect(await outcome.getByRole('link', { name: 'broken-rows' }).getAttribute('href')).toBe(
      `/datasets/${failed!.id}`,
    )
    expect(await page.getByRole('button', { name: 'OK', exact: true }).count()).toBe(0)

    await row.click()
    const alert = page.getByRole('alert').filter({ hasText: 'Processing failed' })
    await alert.waitFor()
    expect(await alert.textContent()).toContain(detail.error.code)
    expect(await alert.textContent()).toContain(detail.error.message)
    await browser.screenshot('datasets-09-failed-detail')

    page.once('dialog', (dialog) => void dialog.accept())
    await page.getByRole('button', { name: 'Delete' }).click()
    await page.waitForURL(/\/datasets$/)
    await expect
      .poll(async () => (await listDatasets(server)).some((d) => d.name === 'broken-rows'))
      .toBe(false)
    expect(await page.locator('tbody tr', { hasText: 'broken-rows' }).count()).toBe(0)

    // The deleted dataset's page: the API's 404 shows in the banner with its code, and can be dismissed.
    await page.goto(`/datasets/${failed!.id}`)
    const banner = page.locator('.banner-error')
    await banner.waitFor()
    const notFound = await fetch(`${server.url}/api/datasets/${failed!.id}`)
    expect(notFound.status).toBe(404)
    const body = (await notFound.json()) as { code: string; message: string }
    expect(await banner.locator('.banner-code').textContent()).toBe(body.code)
    expect(await banner.locator('.banner-message').textContent()).toBe(body.message)
    await browser.screenshot('datasets-10-error-banner')
    await page.getByRole('button', { name: 'Dismiss error' }).click()
    expect(await page.locator('.banner-error').count()).toBe(0)
  })
})

/** The preview table shows the fixture's first rows: ids and the first values, to display precision. */
async function expectPreviewMatches(page: Page, fixture: HogFixture): Promise<void> {
  const rows = page.locator('tr[data-row-index]')
  await rows.first().waitFor()
  expect(await rows.count()).toBe(20)
  for (let r = 0; r < 3; r++) {
    const cells = await rows.nth(r).locator('td').allInnerTexts()
    const expected = fixture.head[r]!
    expect(cells[0]).toBe(String(r))
    expect(cells[1]).toBe(expected.ids.join(' '))
    const shown = cells.slice(2, 14).map(Number)
    expect(shown).toHaveLength(12)
    for (const [j, v] of shown.entries()) expect(v).toBeCloseTo(expected.values[j]!, 4)
    expect(cells[14]).toBe('…')
  }
}
