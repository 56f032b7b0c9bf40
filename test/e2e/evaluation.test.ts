import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, type TestBrowser } from '../support/browser.ts'
import { repoRoot, startTestServer, type TestServer } from '../support/server.ts'

// The Evaluation page against a real server (in-process, fresh home, PGlite, real evaluation
// worker) in a real Chromium: upload the digits grid through the form, launch a small evaluation,
// follow it live, and check what the page shows against the API's own record.

const DIGITS = join(repoRoot, 'data/digits.png')

interface ApiResult {
  k: number
  accuracy: number
  perClass: (number | null)[]
  confusion: number[][]
  misclassified: { index: number; trueLabel: number; predicted: number }[]
  testImages: number
}

interface ApiEvaluation {
  id: string
  status: string
  classes: string[]
  results: ApiResult[]
}

async function getJson<T>(server: TestServer, path: string): Promise<T> {
  const res = await fetch(`${server.url}${path}`)
  expect(res.status, path).toBe(200)
  return (await res.json()) as T
}

/** Accuracy as the page should print it, computed here independently of the web code. */
function percent(accuracy: number): string {
  return `${(accuracy * 100).toFixed(1)}%`
}

/** The counts of the confusion table on the page, row by row. */
async function confusionCounts(page: Page): Promise<number[][]> {
  return page
    .locator('table.confusion tbody tr')
    .evaluateAll((rows) =>
      rows.map((row) =>
        Array.from(row.querySelectorAll('td[data-count]'), (td) => Number(td.getAttribute('data-count'))),
      ),
    )
}

describe('Evaluation page (Chromium)', () => {
  let server: TestServer
  let browser: TestBrowser

  beforeAll(async () => {
    server = await startTestServer()
    browser = await launchBrowser({ baseURL: server.url })
  })

  afterAll(async () => {
    await browser?.close()
    await server?.close()
  })

  it('uploads the digits grid, runs an evaluation live and shows the curve, confusion and mistakes', async () => {
    const { page } = browser
    // The socket.io frames the page receives: proof the live feed (not only polling) drove the page.
    const socketEvents: string[] = []
    page.on('websocket', (ws) =>
      ws.on('framereceived', (frame) => {
        const text = typeof frame.payload === 'string' ? frame.payload : frame.payload.toString()
        // socket.io's frame of one event: 42["job:event",{kind,id,seq,type,data}].
        if (!text.startsWith('42["job:event",')) return
        const [, event] = JSON.parse(text.slice(2)) as [string, { kind: string; type: string }]
        if (event.kind === 'evaluation') socketEvents.push(event.type)
      }),
    )

    await page.goto(server.uiUrl)
    await page.getByText('Server ok').waitFor()
    await page.getByRole('link', { name: 'Evaluation', exact: true }).click()
    await page.waitForURL(/\/evaluations$/)
    await page.getByText('No image sets yet.').waitFor()
    await page.getByText('No evaluations yet.').waitFor()

    // Inline validation: a malformed cell size is named before anything is sent.
    await page.getByLabel('Choose an image set file').setInputFiles(DIGITS)
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('digits')
    await page.getByLabel('Cell size (px)').fill('20*20')
    await page.getByText('Cell size must look like 20x20').waitFor()
    await browser.screenshot('evaluation-01-invalid-grid')
    // A cell size that does not tile the 2000 × 1000 image: the server's coded error is shown at
    // the Cell size field (where it is fixed), not in the page banner; an edit clears it.
    await page.getByLabel('Cell size (px)').fill('30x30')
    await page.getByRole('button', { name: 'Upload image set' }).click()
    const refusal = page.locator('[data-code="GRID_MISMATCH"]')
    await refusal.waitFor()
    expect(await refusal.textContent()).toContain('2000×1000')
    expect(await page.locator('.banner-error').count()).toBe(0)
    expect((await getJson<{ imageSets: unknown[] }>(server, '/api/image-sets')).imageSets).toHaveLength(0)

    await page.getByLabel('Cell size (px)').fill('20x20')
    await page.getByLabel('Rows per class').fill('5')
    await page.getByRole('button', { name: 'Upload image set' }).click()

    const setRow = page.locator('tr[data-image-set-id]', { hasText: 'digits' })
    await setRow.locator('[data-status="ready"]').waitFor({ timeout: 60_000 })
    const { imageSets } = await getJson<{ imageSets: { id: string; count: number; classes: string[] }[] }>(
      server,
      '/api/image-sets',
    )
    expect(imageSets).toHaveLength(1)
    // digits.png: 100 × 50 cells of 20 px, 5 rows per digit (data/README).
    expect(imageSets[0]).toMatchObject({
      count: 5000,
      classes: ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'],
    })
    const cells = await setRow.locator('td').allInnerTexts()
    expect(cells[3]).toBe('10')
    expect(cells[4]).toBe('5,000')

    // A small run: two vocabulary sizes on 20 digits per class.
    await page.getByLabel('Vocabulary sizes k').fill('8, 16')
    await page.getByLabel('Images per class').fill('20')
    await page.getByLabel('Evaluation name').fill('digits quick')
    await browser.screenshot('evaluation-02-form')
    await page.getByRole('button', { name: 'Start evaluation' }).click()
    await page.waitForURL(/\/evaluations\/[^/]+$/)
    const id = decodeURIComponent(page.url().split('/').pop() ?? '')

    // Watch the bar: its value never goes back, and it ends full.
    const seen: number[] = []
    const phases = new Set<string>()
    const bar = page.getByRole('progressbar', { name: 'Evaluation progress' })
    await bar.waitFor()
    const deadline = Date.now() + 90_000
    let shotRunning = false
    for (;;) {
      // Status first: the bar read after it is at least as new.
      const status = await page.locator('h1 [data-status]').getAttribute('data-status')
      seen.push(Number(await bar.getAttribute('aria-valuenow')))
      phases.add((await page.getByTestId('evaluation-phase').textContent()) ?? '')
      if (status === 'succeeded' || status === 'failed' || status === 'cancelled') {
        expect(status).toBe('succeeded')
        break
      }
      if (Date.now() > deadline) throw new Error(`evaluation still ${status} after 90 s`)
      const last = seen.at(-1) ?? 0
      if (!shotRunning && last > 0 && last < 100) {
        shotRunning = true
        await browser.screenshot('evaluation-03-running')
      }
      await page.waitForTimeout(150)
    }
    console.log(
      `progress seen: ${seen.join(' ')}\nphases: ${[...phases].join(' | ')}\nevents: ${socketEvents.join(' ')}`,
    )
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThanOrEqual(seen[i - 1]!)
    expect(seen.at(-1)).toBe(100)
    // The bar moved through intermediate values, with the phase text of the socket's progress events.
    expect(seen.some((v) => v > 0 && v < 100)).toBe(true)
    expect([...phases].some((p) => /learning the vocabulary/.test(p))).toBe(true)
    expect(socketEvents).toContain('progress')
    expect(socketEvents).toContain('result')

    // Both points on the chart, and the accuracy the page prints is the API's.
    await page.locator('[data-testid="accuracy-chart"][data-points="2"] canvas').waitFor()
    const record = await getJson<ApiEvaluation>(server, `/api/evaluations/${encodeURIComponent(id)}`)
    expect(record.status).toBe('succeeded')
    expect(record.results.map((r) => r.k).sort((a, b) => a - b)).toEqual([8, 16])
    for (const r of record.results) {
      const cell = page.locator(`tr[data-k="${r.k}"] [data-testid="accuracy"]`)
      expect(await cell.textContent()).toBe(percent(r.accuracy))
      expect(Number(await cell.getAttribute('data-accuracy'))).toBe(r.accuracy)
    }
    const chartCard = page.locator('section[aria-label="Accuracy versus vocabulary size"]')
    await page.waitForTimeout(300) // ECharts' first frame
    await chartCard.screenshot({ path: join(repoRoot, 'test/artifacts/evaluation-04-chart.png') })

    // The confusion matrix and the gallery follow the k selector; counts are the API's.
    for (const k of [16, 8]) {
      await page.getByLabel('k', { exact: true }).selectOption(String(k))
      await page.getByRole('heading', { name: `Confusion matrix — k = ${k}` }).waitFor()
      const result = record.results.find((r) => r.k === k)!
      expect(await confusionCounts(page)).toEqual(result.confusion)
      const total = result.confusion.flat().reduce((s, v) => s + v, 0)
      expect(total).toBe(result.testImages)
      const items = page.locator('.gallery-item')
      expect(await items.count()).toBe(result.misclassified.length)
      expect(result.misclassified.length).toBeGreaterThan(0)
      const first = result.misclassified[0]!
      expect(await items.first().getAttribute('data-index')).toBe(String(first.index))
      expect(await items.first().locator('figcaption span').first().textContent()).toBe(
        `${record.classes[first.trueLabel]} → ${record.classes[first.predicted]}`,
      )
    }
    // The whole matrix is in view, its `n` column too (it was clipped in a half-width card): no
    // scrolling inside its box.
    const wrap = page.locator('.eval-split .table-wrap').first()
    expect(await wrap.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true)
    const nBox = (await page.locator('table.confusion th.confusion-total').boundingBox())!
    const wrapBox = (await wrap.boundingBox())!
    expect(nBox.x + nBox.width).toBeLessThanOrEqual(wrapBox.x + wrapBox.width)
    // The sample images load from the image endpoint: 20 × 20 digit cells.
    const firstImage = page.locator('.gallery-item img').first()
    await expect.poll(() => firstImage.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(20)
    await browser.screenshot('evaluation-05-detail')

    // Back on the list, the evaluation shows as succeeded with its best accuracy.
    await page.getByRole('link', { name: 'Evaluation', exact: true }).first().click()
    const row = page.locator(`tr[data-evaluation-id="${id}"]`)
    await row.locator('[data-status="succeeded"]').waitFor()
    const best = Math.max(...record.results.map((r) => r.accuracy))
    expect(await row.locator('td').nth(5).textContent()).toBe(percent(best))
    await browser.screenshot('evaluation-06-list')
  })

  it('falls back to polling when the socket cannot connect', async () => {
    const context = await browser.browser.newContext({
      baseURL: server.url,
      viewport: { width: 1360, height: 900 },
    })
    try {
      // No socket.io at all (neither websocket nor long-polling): the page must still follow the run.
      await context.route('**/socket.io/**', (route) => route.abort())
      await context.routeWebSocket(/\/socket\.io\//, (ws) =>
        ws.close({ code: 1008, reason: 'blocked by the test' }),
      )
      const frames: string[] = []
      context.on('page', (p) =>
        p.on('websocket', (ws) => ws.on('framereceived', (f) => frames.push(String(f.payload)))),
      )
      const page = await context.newPage()
      const { imageSets } = await getJson<{ imageSets: { id: string }[] }>(server, '/api/image-sets')
      const res = await fetch(`${server.url}/api/evaluations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...server.authHeaders },
        body: JSON.stringify({
          imageSetId: imageSets[0]!.id,
          k: [8, 16],
          limitPerClass: 10,
          name: 'no socket',
        }),
      })
      expect(res.status).toBe(201)
      const { id } = (await res.json()) as { id: string }
      await page.goto(`/evaluations/${encodeURIComponent(id)}`)
      // Opened while it is still queued or running (the child process alone takes seconds to start),
      // so reaching `succeeded` below is the polling's doing.
      const firstStatus = await page.locator('h1 [data-status]').getAttribute('data-status')
      expect(['queued', 'running']).toContain(firstStatus)
      await page.getByText('events offline').first().waitFor()
      await page.locator('h1 [data-status="succeeded"]').waitFor({ timeout: 90_000 })
      await page.locator('[data-testid="accuracy-chart"][data-points="2"] canvas').waitFor()
      const record = await getJson<ApiEvaluation>(server, `/api/evaluations/${encodeURIComponent(id)}`)
      for (const r of record.results)
        expect(await page.locator(`tr[data-k="${r.k}"] [data-testid="accuracy"]`).textContent()).toBe(
          percent(r.accuracy),
        )
      expect(frames).toEqual([])
      await browser.screenshot('evaluation-07-polling', page)

      // An unknown evaluation: the page says so and the banner carries the API's coded 404.
      await page.goto('/evaluations/no-such-evaluation')
      await page.getByText('Evaluation not found.').waitFor()
      const notFound = await fetch(`${server.url}/api/evaluations/no-such-evaluation`)
      expect(notFound.status).toBe(404)
      const body = (await notFound.json()) as { code: string }
      expect(await page.locator('.banner-error .banner-code').textContent()).toBe(body.code)
    } finally {
      await context.close()
    }
  })
})
