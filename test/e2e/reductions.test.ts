import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, type TestBrowser } from '../support/browser.ts'
import { repoRoot, startTestServer, type TestServer } from '../support/server.ts'

// The Reductions page against a real server (in-process, fresh home, PGlite, the real study
// child process) in a real Chromium: queue a small Figure 3 study through the form, follow it
// live, and check the chart and the table against the API's stored record; then a small Figure 4
// grid (both heat maps) and the Markov table.

interface ApiStudy {
  id: string
  kind: string
  status: string
  results: Record<string, unknown>[]
}

async function getStudy(server: TestServer, id: string): Promise<ApiStudy> {
  const res = await fetch(`${server.url}/api/studies/${encodeURIComponent(id)}`)
  expect(res.status).toBe(200)
  return (await res.json()) as ApiStudy
}

describe('Reductions page (Chromium)', () => {
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

  it('runs a small study from the form, live, and draws Figure 3, the Figure 4 maps and the Markov table', async () => {
    const { page } = browser
    const socketEvents: string[] = []
    page.on('websocket', (ws) =>
      ws.on('framereceived', (frame) => {
        const text = typeof frame.payload === 'string' ? frame.payload : frame.payload.toString()
        // socket.io's frame of one event: 42["job:event",{kind,id,seq,type,data}].
        if (!text.startsWith('42["job:event",')) return
        const [, event] = JSON.parse(text.slice(2)) as [string, { kind: string; type: string }]
        if (event.kind === 'study') socketEvents.push(event.type)
      }),
    )

    await page.goto(server.uiUrl)
    await page.getByText('Server ok').waitFor()
    await page.getByRole('link', { name: 'Reductions', exact: true }).click()
    await page.waitForURL(/\/reductions$/)
    await page.getByText('No studies yet.').waitFor()

    // The server's bounds are checked at the field before anything is sent.
    await page.getByLabel('Processes n').fill('2000')
    await page.getByLabel('CVs').fill('0.1, ten')
    await page.getByText('give numbers separated by commas').waitFor()
    await page.getByText(/1024/).first().waitFor()
    await browser.screenshot('reductions-01-invalid')

    await page.getByLabel('Processes n').fill('32')
    await page.getByLabel('CVs').fill('0.01, 0.1, 0.3, 1, 3, 10')
    await page.getByLabel('Runs per CV × μc').fill('5000')
    await page.getByLabel('Study name').fill('quick figure 3')
    await browser.screenshot('reductions-02-form')
    await page.getByRole('button', { name: 'Start study' }).click()
    await page.waitForURL(/\/reductions\/[^/]+$/)
    const id = decodeURIComponent(page.url().split('/').pop() ?? '')

    // The bar never goes back and ends full.
    const bar = page.getByRole('progressbar', { name: 'Study progress' })
    await bar.waitFor()
    const seen: number[] = []
    const deadline = Date.now() + 120_000
    let shotRunning = false
    for (;;) {
      const status = await page.locator('h1 [data-status]').getAttribute('data-status')
      seen.push(Number(await bar.getAttribute('aria-valuenow')))
      if (status === 'succeeded' || status === 'failed' || status === 'cancelled') {
        expect(status).toBe('succeeded')
        break
      }
      if (Date.now() > deadline) throw new Error(`study still ${status} after 120 s`)
      if (!shotRunning && (seen.at(-1) ?? 0) > 0) {
        shotRunning = true
        await browser.screenshot('reductions-03-running')
      }
      await page.waitForTimeout(100)
    }
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThanOrEqual(seen[i - 1]!)
    expect(seen.at(-1)).toBe(100)
    expect(socketEvents).toContain('state')
    expect(socketEvents).toContain('result')

    // Four curves of six CVs on the chart; the table prints the API's rows.
    const chart = page.locator('[data-testid="figure3-chart"][data-curves="4"][data-points="24"]')
    await chart.locator('canvas').first().waitFor()
    const record = await getStudy(server, id)
    expect(record).toMatchObject({ kind: 'reductions', status: 'succeeded' })
    expect(record.results).toHaveLength(24)
    const tableRows = page.locator('section[aria-label="Figure 3"] tbody tr')
    expect(await tableRows.count()).toBe(24)
    for (const [i, row] of record.results.entries()) {
      const cells = await tableRows.nth(i).locator('td').allInnerTexts()
      expect(cells[1]).toBe(String(row.cv))
      expect(cells[3]).toBe((row.mean as number).toFixed(4))
    }
    await page.waitForTimeout(300) // ECharts' first frame
    await chart.screenshot({ path: join(repoRoot, 'test/artifacts/reductions-04-figure3.png') })

    // Figure 4 on a small grid: 221 cells, both maps drawn.
    await page.getByRole('link', { name: 'Reductions', exact: true }).first().click()
    await page.getByLabel('Study', { exact: true }).selectOption('grid')
    await page.getByLabel('Processes n').fill('8')
    await page.getByLabel('Runs per cell (221 cells)').fill('20')
    await page.getByRole('button', { name: 'Start study' }).click()
    await page.waitForURL(/\/reductions\/[^/]+$/)
    await page.locator('[data-testid="figure4"][data-cells="221"]').waitFor({ timeout: 120_000 })
    await page.locator('[data-testid="figure4-ratio"] canvas').first().waitFor()
    await page.locator('[data-testid="figure4-best"] canvas').first().waitFor()
    await page.locator('[data-testid="figure4-best-noncommutative"] canvas').first().waitFor()
    await page.locator('h1 [data-status="succeeded"]').waitFor({ timeout: 30_000 })
    await page.waitForTimeout(300)
    await page
      .locator('section[aria-label="Figure 4"]')
      .screenshot({ path: join(repoRoot, 'test/artifacts/reductions-05-figure4.png') })

    // The Markov check: the table prints the API's simulated and closed-form means.
    await page.getByRole('link', { name: 'Reductions', exact: true }).first().click()
    await page.getByLabel('Study', { exact: true }).selectOption('markov')
    await page.getByLabel('Processes n').fill('64')
    await page.getByLabel('Runs', { exact: true }).fill('20000')
    await page.getByRole('button', { name: 'Start study' }).click()
    await page.waitForURL(/\/reductions\/[^/]+$/)
    const markovId = decodeURIComponent(page.url().split('/').pop() ?? '')
    const table = page.getByTestId('markov-table')
    await table.waitFor({ timeout: 120_000 })
    const markov = (await getStudy(server, markovId)).results[0]!
    const texts = await table.locator('tbody tr').allInnerTexts()
    expect(texts[0]).toContain((markov.simulatedMean as number).toFixed(4))
    expect(texts[1]).toContain((markov.formulaMean as number).toFixed(4))
    expect(texts[2]).toContain((markov.paperFormulaMean as number).toFixed(4))
    await browser.screenshot('reductions-06-markov')

    // The list holds all three, succeeded.
    await page.getByRole('link', { name: 'Reductions', exact: true }).first().click()
    await page.locator('tr[data-study-id] [data-status="succeeded"]').nth(2).waitFor({ timeout: 30_000 })
    expect(await page.locator('tr[data-study-id]').count()).toBe(3)
    await browser.screenshot('reductions-07-list')
  }, 300_000)
})
