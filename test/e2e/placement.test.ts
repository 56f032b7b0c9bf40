import { generateTopology } from '@codebook/runtime/topology'
import { planPlanners } from '@codebook/shared'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, type TestBrowser } from '../support/browser.ts'
import { startTestServer, type TestServer } from '../support/server.ts'

// The Placement panel (issue 21) against a real server (in-process, the plan child process) in a
// real Chromium: plan a small case, read the cost bars off the chart's canvas, compare with the API.

interface PlanAnswer {
  plans: { algorithm: string; cost: number; siteOf: number[]; nodeOf: number[] }[]
  sites: string[]
  chosen: string
  aggregation?: string
}

const PLANNER_COLORS = { geo: [0x2f, 0x5b, 0xea], random: [0x94, 0xa3, 0xb8] } as const

/** Height in canvas pixels of the bar drawn in `rgb` (rows holding that exact colour), 0 when absent. */
function barHeight(page: Page, chart: string, rgb: readonly number[]): Promise<number> {
  return page.evaluate(
    ({ selector, rgb }) => {
      const canvas = document.querySelector<HTMLCanvasElement>(`${selector} canvas`)
      const ctx = canvas?.getContext('2d')
      if (!canvas || !ctx) return 0
      const { data, width, height } = ctx.getImageData(0, 0, canvas.width, canvas.height)
      let top = -1
      let bottom = -1
      for (let y = 0; y < height; y++)
        for (let x = 0; x < width; x++) {
          const i = (y * width + x) * 4
          if (data[i] === rgb[0] && data[i + 1] === rgb[1] && data[i + 2] === rgb[2]) {
            if (top < 0) top = y
            bottom = y
            break
          }
        }
      return top < 0 ? 0 : bottom - top + 1
    },
    { selector: chart, rgb: [...rgb] },
  )
}

/** Viewport point in the middle of the bar drawn in `rgb`, or null when absent. */
function barCenter(
  page: Page,
  chart: string,
  rgb: readonly number[],
): Promise<{ x: number; y: number } | null> {
  return page.evaluate(
    ({ selector, rgb }) => {
      const canvas = document.querySelector<HTMLCanvasElement>(`${selector} canvas`)
      const ctx = canvas?.getContext('2d')
      if (!canvas || !ctx) return null
      const { data, width, height } = ctx.getImageData(0, 0, canvas.width, canvas.height)
      let n = 0
      let sx = 0
      let sy = 0
      for (let y = 0; y < height; y++)
        for (let x = 0; x < width; x++) {
          const i = (y * width + x) * 4
          if (data[i] === rgb[0] && data[i + 1] === rgb[1] && data[i + 2] === rgb[2]) {
            n++
            sx += x
            sy += y
          }
        }
      if (n === 0) return null
      const box = canvas.getBoundingClientRect()
      return {
        x: box.left + ((sx / n) * box.width) / width,
        y: box.top + ((sy / n) * box.height) / height,
      }
    },
    { selector: chart, rgb: [...rgb] },
  )
}

describe('Placement panel (Chromium)', () => {
  let server: TestServer
  let browser: TestBrowser
  let topologyId = ''

  beforeAll(async () => {
    server = await startTestServer()
    const res = await fetch(`${server.url}/api/topologies`, {
      method: 'POST',
      headers: { ...server.authHeaders, 'content-type': 'application/json' },
      body: JSON.stringify({
        topology: generateTopology({
          name: 'placement-e2e',
          racks: 2,
          nodesPerRack: 2,
          nodeGbps: 1,
          uplinkGbps: 10,
        }),
      }),
    })
    expect(res.status).toBe(201)
    topologyId = ((await res.json()) as { id: string }).id
    browser = await launchBrowser({ baseURL: server.url })
    await browser.page.goto(server.uiUrl)
    await browser.page.getByText('Server ok').waitFor()
  })

  afterAll(async () => {
    await browser?.close()
    await server?.close()
  })

  it('plans a small case: progress while planning, a bar per planner, the mapping per site', async () => {
    const { page } = browser
    await page.goto(`/topology/${topologyId}`)
    const panel = page.getByRole('region', { name: 'Placement' })
    await panel.scrollIntoViewIfNeeded()
    await panel.getByLabel('Workload').selectOption('lu')
    await panel.getByLabel('Processes').fill('9000')
    // The server's limit, shown at its field before anything is sent.
    await panel.getByRole('alert').getByText('processes').waitFor()
    expect(await panel.getByRole('button', { name: 'Plan placement' }).isDisabled()).toBe(true)
    await panel.getByLabel('Processes').fill('32')
    await panel.getByLabel('Pinned share').fill('0.25')
    await panel.getByLabel('Seed').fill('7')
    await panel.getByLabel('Monte Carlo').fill('1000')

    const answer = page.waitForResponse((r) => r.url().endsWith('/api/plans'))
    await panel.getByRole('button', { name: 'Plan placement' }).click()
    // A fresh child process plans: long enough to see the progress.
    await panel.getByRole('status').getByText('Planning…').waitFor()
    const shown = (await (await answer).json()) as PlanAnswer
    const result = panel.getByTestId('placement-result')
    await result.locator('.chart canvas').first().waitFor()

    // The page shows what the API answers for the same request, and the API is deterministic.
    const direct = await fetch(`${server.url}/api/plans`, {
      method: 'POST',
      headers: { ...server.authHeaders, 'content-type': 'application/json' },
      body: JSON.stringify({
        profile: 'ec2-4',
        pattern: 'lu',
        processes: 32,
        constraintRatio: 0.25,
        seed: 7,
        monteCarlo: 1000,
        // No planners: the API's default, every planner (geo-refined included), as the form's.
      }),
    })
    const again = (await direct.json()) as PlanAnswer
    expect(again.plans.map((p) => [p.cost, p.siteOf])).toEqual(shown.plans.map((p) => [p.cost, p.siteOf]))
    expect(again.chosen).toBe(shown.chosen)

    const rows = result.getByRole('table', { name: 'Cost per planner' }).locator('tbody tr')
    expect(await rows.count()).toBe(planPlanners.length)
    const geo = shown.plans.find((p) => p.algorithm === 'geo')!.cost
    const random = shown.plans.find((p) => p.algorithm === 'random')!.cost
    expect(geo).toBeLessThan(random)

    // The bars are drawn, their heights in the ratio of the costs (one axis from 0).
    const chart = '[data-testid="placement-result"] .topo-whatif-part:first-child'
    await expect.poll(() => barHeight(page, chart, PLANNER_COLORS.random)).toBeGreaterThan(20)
    const hRandom = await barHeight(page, chart, PLANNER_COLORS.random)
    const hGeo = await barHeight(page, chart, PLANNER_COLORS.geo)
    expect(hGeo).toBeGreaterThan(0)
    expect(Math.abs(hGeo - (hRandom * geo) / random)).toBeLessThanOrEqual(4)

    // The cheapest plan's mapping per site: 4 sites × 8 nodes (32 spread evenly), counts as the
    // API's; then random's, picked in the select.
    const siteRows = result.getByRole('table', { name: 'Ranks per site' }).locator('tbody tr')
    expect(await siteRows.count()).toBe(4)
    const expectSites = async (algorithm: string) => {
      const siteOf = shown.plans.find((p) => p.algorithm === algorithm)!.siteOf
      for (const [s, name] of shown.sites.entries()) {
        const cells = await result.locator(`tbody tr[data-site="${name}"] td`).allInnerTexts()
        expect(cells[1]).toBe('8')
        const ranks = siteOf.flatMap((x, rank) => (x === s ? [rank] : []))
        expect(cells[2]).toBe(String(ranks.length))
        // The ranks themselves (as ranges, `0–1, 6–7, 13`; 8 ranks never reach the 12-part cut):
        // what tells two mappings apart.
        const listed = cells[4]!.split(', ').flatMap((part) => {
          const [a, b = a] = part.split('–').map(Number)
          return Array.from({ length: b! - a! + 1 }, (_, i) => a! + i)
        })
        expect(listed, `${algorithm} ${name}`).toEqual(ranks)
      }
    }
    const siteOfChosen = shown.plans.find((p) => p.algorithm === shown.chosen)!.siteOf
    expect(shown.plans.find((p) => p.algorithm === 'random')!.siteOf).not.toEqual(siteOfChosen)
    expect(await result.getByLabel('Planner', { exact: true }).inputValue()).toBe(shown.chosen)
    await expectSites(shown.chosen)
    await result.getByLabel('Planner', { exact: true }).selectOption('random')
    await expectSites('random')
    await result.getByLabel('Planner', { exact: true }).selectOption(shown.chosen)
    // A click on a planner's bar shows that planner's mapping.
    await result.scrollIntoViewIfNeeded()
    const bar = await barCenter(page, chart, PLANNER_COLORS.random)
    expect(bar).not.toBeNull()
    await page.mouse.click(bar!.x, bar!.y)
    await expect.poll(() => result.getByLabel('Planner', { exact: true }).inputValue()).toBe('random')
    await expectSites('random')
    await result.getByLabel('Planner', { exact: true }).selectOption(shown.chosen)
    await panel.getByTestId('placement-monte-carlo').waitFor()
    await result.scrollIntoViewIfNeeded()
    await browser.screenshot('placement-01-planned')
  }, 120_000)

  it('"Use for a run" opens the run form on the saved topology with the shown mapping attached', async () => {
    // 4 sites × 2 nodes, named site-0 … site-3: the ec2-4 plan's sites match them by position.
    const res = await fetch(`${server.url}/api/topologies`, {
      method: 'POST',
      headers: { ...server.authHeaders, 'content-type': 'application/json' },
      body: JSON.stringify({
        topology: generateTopology({
          name: 'placement-sites',
          sites: 4,
          racks: 1,
          nodesPerRack: 2,
          nodeGbps: 1,
          uplinkGbps: 10,
        }),
      }),
    })
    const { id, version } = (await res.json()) as { id: string; version: number }
    const { page } = browser
    await page.goto(`/topology/${id}`)
    const panel = page.getByRole('region', { name: 'Placement' })
    await panel.scrollIntoViewIfNeeded()
    // K-means: the panel plans it with the ring aggregation unless told otherwise, and the run
    // placed by the plan takes that aggregation too (the run form's own default is three-stage).
    await panel.getByLabel('Workload').selectOption('kmeans')
    expect(await panel.getByLabel('Aggregation').inputValue()).toBe('ring')
    await panel.getByLabel('Processes').fill('8')
    await panel.getByLabel('Pinned share').fill('0.25')
    await panel.getByLabel('Monte Carlo').fill('')
    const answer = page.waitForResponse((r) => r.url().endsWith('/api/plans'))
    await panel.getByRole('button', { name: 'Plan placement' }).click()
    const shown = (await (await answer).json()) as PlanAnswer
    const result = panel.getByTestId('placement-result')
    await result.getByLabel('Planner', { exact: true }).selectOption('random')
    await result.getByRole('link', { name: 'Use for a run' }).click()

    // Both number their nodes site by site, 2 per site: plan node j is topology node-j.
    const nodeOf = shown.plans.find((p) => p.algorithm === 'random')!.nodeOf
    await page.waitForURL(/\/runs\?/)
    const q = new URL(page.url()).searchParams
    expect(q.get('topology')).toBe(id)
    expect(q.get('version')).toBe(String(version))
    expect(q.getAll('node')).toEqual(nodeOf.map((j) => `node-${j}`))
    const placed = page.getByTestId('run-mapping')
    await placed.getByText('placed by random').waitFor()
    expect(await page.locator('#run-workers').inputValue()).toBe('8')
    expect(await page.locator('#run-topology').inputValue()).toBe(id)
    expect(shown.aggregation).toBe('ring')
    expect(q.get('aggregation')).toBe('ring')
    expect(await page.locator('#run-aggregation').inputValue()).toBe('ring')
    await browser.screenshot('placement-02-use-for-run')
    // "Unplace" drops the mapping; the topology stays.
    await placed.getByRole('button', { name: 'Unplace' }).click()
    expect(await page.getByTestId('run-mapping').count()).toBe(0)
    expect(await page.locator('#run-topology').inputValue()).toBe(id)
  }, 120_000)
  it('plans onto the topology’s own sites and nodes, and a run takes that plan node by node', async () => {
    const res = await fetch(`${server.url}/api/topologies`, {
      method: 'POST',
      headers: { ...server.authHeaders, 'content-type': 'application/json' },
      body: JSON.stringify({
        topology: generateTopology({
          name: 'own-sites',
          sites: 3,
          racks: 1,
          nodesPerRack: 3,
          nodeGbps: 1,
          uplinkGbps: 10,
        }),
      }),
    })
    const { id } = (await res.json()) as { id: string }
    const { page } = browser
    await page.goto(`/topology/${id}`)
    const panel = page.getByRole('region', { name: 'Placement' })
    await panel.scrollIntoViewIfNeeded()
    await panel.getByLabel('Sites').selectOption('topology')
    await panel.getByLabel('Workload').selectOption('lu')
    await panel.getByLabel('Processes').fill('10')
    // One process per node: the topology's 9 nodes, said at the field before anything is sent.
    await panel.getByRole('alert').getByText('9 nodes').waitFor()
    await panel.getByLabel('Processes').fill('9')
    await panel.getByLabel('Monte Carlo').fill('')
    const answer = page.waitForResponse((r) => r.url().endsWith('/api/plans'))
    await panel.getByRole('button', { name: 'Plan placement' }).click()
    const shown = (await (await answer).json()) as PlanAnswer & { sites: string[]; capacity: number[] }
    expect(shown.sites).toEqual(['site-0', 'site-1', 'site-2'])
    expect(shown.capacity).toEqual([3, 3, 3])
    const result = panel.getByTestId('placement-result')
    await result.getByLabel('Planner', { exact: true }).selectOption('random')
    await browser.screenshot('placement-03-own-sites')
    await result.getByRole('link', { name: 'Use for a run' }).click()
    await page.waitForURL(/\/runs\?/)
    // Plan node j of site s is the topology's node 3·s + j: the run form names exactly those nodes.
    const nodeOf = shown.plans.find((p) => p.algorithm === 'random')!.nodeOf
    expect(new URL(page.url()).searchParams.getAll('node')).toEqual(nodeOf.map((j) => `node-${j}`))
  }, 120_000)
})
