import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generateTopology } from '@codebook/runtime/topology'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, type TestBrowser } from '../support/browser.ts'
import { writeHogFixture } from '../support/hog-file.ts'
import { startTestServer, type TestServer } from '../support/server.ts'

// Issue 32 items 3, 4 and 11 in a real Chromium against a real server: a refused what-if shown in
// the card the user clicked (inside the viewport), the Datasets page leading on ("Cluster this
// dataset", the runs made from a dataset), and a 390 px phone with a menu and no sideways scroll.

interface RunRecord {
  id: string
  status: string
}

/**
 * Whether the page scrolls sideways (the document wider than the viewport), with the outermost
 * elements that stick out (for the failure message).
 */
function sidewaysOverflow(
  page: Page,
): Promise<{ scrollWidth: number; clientWidth: number; culprits: string[] }> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth
    const culprits: string[] = []
    for (const el of Array.from(document.querySelectorAll('body *'))) {
      const parent = el.parentElement
      if (!parent || el.getBoundingClientRect().right <= width + 1) continue
      if (parent.getBoundingClientRect().right > width + 1) continue
      culprits.push(
        `${el.tagName.toLowerCase()}.${String(el.className).replaceAll(' ', '.')} → ${Math.round(el.getBoundingClientRect().right)}`,
      )
    }
    return {
      scrollWidth: document.documentElement.scrollWidth,
      clientWidth: width,
      culprits: culprits.slice(0, 6),
    }
  })
}

describe('first hour: errors where the user acts, datasets lead on, phone layout (Chromium)', () => {
  let server: TestServer
  let browser: TestBrowser
  let dir: string
  let datasetId = ''
  let topologyId = ''
  let run: RunRecord

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'codebook-e2e-layout-'))
    const hog = await writeHogFixture(dir, { filename: 'patches.txt', n: 600, d: 16, seed: 5 })
    server = await startTestServer()
    const post = (path: string, body: unknown, type = 'application/json') =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { ...server.authHeaders, 'content-type': type },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      })
    const up = await post(
      '/api/datasets?name=patches&format=hog-text&wait=true',
      await readFile(hog.path, 'utf8'),
      'text/plain',
    )
    expect(up.status).toBe(201)
    datasetId = ((await up.json()) as { id: string }).id
    const created = await post('/api/runs', { datasetId, k: 4, maxIterations: 3, workers: 1 })
    expect(created.status).toBe(201)
    run = await server.app.runs.settled(((await created.json()) as RunRecord).id)
    expect(run.status).toBe('succeeded')
    // The papers' cluster size: 4 racks of 38 nodes (152), 1 GbE behind 10 GbE uplinks.
    const topo = await post('/api/topologies', {
      topology: generateTopology({
        name: 'papers-152',
        racks: 4,
        nodesPerRack: 38,
        nodeGbps: 1,
        uplinkGbps: 10,
      }),
    })
    expect(topo.status).toBe(201)
    topologyId = ((await topo.json()) as { id: string }).id
    browser = await launchBrowser({ baseURL: server.url })
    await browser.page.goto(server.uiUrl)
    await browser.page.getByText('Server ok').waitFor()
  })

  afterAll(async () => {
    await browser?.close()
    await server?.close()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('a refused what-if is shown in its card, inside the viewport, and says what to change in the form', async () => {
    const { page } = browser
    await page.goto(`/topology/${topologyId}`)
    const card = page.getByTestId('whatif-broadcast')
    await card.scrollIntoViewIfNeeded()
    await card.getByLabel('Size').selectOption({ label: '1 GB' })
    const answer = page.waitForResponse((r) => r.url().endsWith('/api/simulate/broadcast'))
    await card.getByRole('button', { name: 'Simulate broadcast' }).click()
    const res = await answer
    expect(res.status()).toBe(400)
    expect(((await res.json()) as { code: string }).code).toBe('SIM_TOO_LARGE')

    const error = page.getByTestId('whatif-broadcast-error')
    await error.waitFor()
    expect(await error.textContent()).toContain('SIM_TOO_LARGE')
    expect(await error.textContent()).toContain('choose a larger Chunk')
    // Where the user is: inside the viewport, not only at the top of the page.
    const box = await error.boundingBox()
    const viewport = page.viewportSize()!
    expect(box).not.toBeNull()
    expect(box!.y).toBeGreaterThanOrEqual(0)
    expect(box!.y + box!.height).toBeLessThanOrEqual(viewport.height)
    expect(box!.x + box!.width).toBeLessThanOrEqual(viewport.width)
    // Not a second copy in the page banner.
    expect(await page.locator('.banner-error').count()).toBe(0)
    await browser.screenshot('first-hour-layout-01-whatif-error', page)

    // The form offers what the message asks for: a larger chunk simulates.
    await card.getByLabel('Chunk').selectOption({ label: '16 MiB' })
    await card.getByRole('button', { name: 'Simulate broadcast' }).click()
    await card.getByRole('table', { name: 'Simulated broadcast seconds' }).waitFor()
    expect(await error.count()).toBe(0)
    expect(await card.locator('thead').textContent()).toContain('152 nodes')
  })

  it('the Datasets page leads on: "Cluster this dataset" and the runs made from a dataset', async () => {
    const { page } = browser
    await page.goto('/datasets')
    const row = page.locator(`tr[data-dataset-id="${datasetId}"]`)
    const cluster = row.getByRole('link', { name: 'Cluster this dataset' })
    expect(await cluster.getAttribute('href')).toBe(`/runs?datasetId=${datasetId}`)
    await cluster.click()
    await page.waitForURL(/\/runs\?datasetId=/)
    expect(new URL(page.url()).searchParams.get('datasetId')).toBe(datasetId)

    // A second file of the same name is warned about at the Name field, not refused.
    await page.goto('/datasets')
    await page.getByLabel('Choose a dataset file').setInputFiles({
      name: 'Patches.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('0 0 0 1 2\n'),
    })
    const warning = page.locator('.upload-form .field-warning')
    await warning.waitFor()
    expect(await warning.textContent()).toContain('A dataset is already named “patches”')
    expect(await page.getByRole('button', { name: 'Upload', exact: true }).isEnabled()).toBe(true)
    await page.getByLabel('Name').fill('patches, second')
    await warning.waitFor({ state: 'detached' })

    await page.goto(`/datasets/${datasetId}`)
    const made = page.getByRole('region', { name: 'Made from this dataset' })
    const runRow = made.locator(`tr[data-run-id="${run.id}"]`)
    await runRow.waitFor()
    expect(await made.locator('.card-subtitle').textContent()).toBe('1 run · 1 vocabulary')
    expect(await runRow.locator('[data-status]').getAttribute('data-status')).toBe('succeeded')
    expect(await runRow.getByRole('link').first().getAttribute('href')).toBe(`/runs/${run.id}`)
    expect(await page.getByRole('link', { name: 'Cluster this dataset' }).getAttribute('href')).toBe(
      `/runs?datasetId=${datasetId}`,
    )
    await browser.screenshot('first-hour-layout-02-dataset-made-from', page)
  })

  it('on a 390 px phone the sidebar is a menu and no page scrolls sideways', async () => {
    const context = await browser.browser.newContext({
      baseURL: server.url,
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 1,
    })
    try {
      const page = await context.newPage()
      await page.goto('/datasets')
      await page.getByText('Server ok').waitFor()
      const sidebar = page.locator('.sidebar')
      expect(await sidebar.isVisible()).toBe(false)
      const menu = page.getByRole('button', { name: 'Menu' })
      await menu.click()
      await sidebar.getByRole('link', { name: 'Runs' }).waitFor()
      await browser.screenshot('first-hour-layout-03-phone-menu', page)
      await sidebar.getByRole('link', { name: 'Runs' }).click()
      await page.waitForURL(/\/runs$/)
      await expect.poll(() => sidebar.isVisible()).toBe(false)

      const pages: [string, string][] = [
        ['/datasets', 'All datasets'],
        [`/datasets/${datasetId}`, 'Made from this dataset'],
        ['/runs', 'New run'],
        [`/runs/${run.id}`, 'Inertia'],
        ['/topology', 'Stored topologies'],
        [`/topology/${topologyId}`, 'What if'],
        ['/evaluations', 'New evaluation'],
        ['/vocabularies', 'All vocabularies'],
        ['/reductions', 'All studies'],
      ]
      const wide: string[] = []
      for (const [path, text] of pages) {
        await page.goto(path)
        await page.locator('main').getByText(text).first().waitFor()
        // Charts and lazy parts settle.
        await page.waitForTimeout(400)
        const { scrollWidth, clientWidth, culprits } = await sidewaysOverflow(page)
        if (scrollWidth > clientWidth)
          wide.push(`${path}: ${scrollWidth} > ${clientWidth} (${culprits.join('; ')})`)
        const name = path.replace(/\/[A-Za-z0-9_-]{12,}/, '-id').replaceAll('/', '-')
        await browser.screenshot(`first-hour-layout-phone${name}`, page)
      }
      expect(wide).toEqual([])
    } finally {
      await context.close()
    }
  })
})
