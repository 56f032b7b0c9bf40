import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, type TestBrowser } from '../support/browser.ts'
import { repoRoot, startTestServer, type TestServer } from '../support/server.ts'

// The Runs pages against a real server (in-process, PGlite, real worker processes) in a real
// Chromium: upload the demo digits' HOG vectors, launch a run through the form, watch the stage
// chart grow while iterations arrive, export the vocabulary as .npy and compare two runs.

const run = promisify(execFile)

/** Headers of a JSON write through the API (with the server's bearer token). */
function writeHeaders(server: TestServer): Record<string, string> {
  return { ...server.authHeaders, 'content-type': 'application/json' }
}

/** Shape and float32 values of a little-endian float32 .npy (an independent reader: header by regex). */
function readNpyF32(bytes: Buffer): { shape: number[]; values: Float32Array } {
  expect(bytes.subarray(0, 6).toString('latin1')).toBe('\x93NUMPY')
  const major = bytes[6]!
  const headerLen = major === 1 ? bytes.readUInt16LE(8) : bytes.readUInt32LE(8)
  const start = (major === 1 ? 10 : 12) + headerLen
  const header = bytes.subarray(major === 1 ? 10 : 12, start).toString('latin1')
  expect(header).toMatch(/'descr':\s*'<f4'/)
  expect(header).toMatch(/'fortran_order':\s*False/)
  const shape = (/'shape':\s*\(([^)]*)\)/.exec(header)?.[1] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map(Number)
  const body = bytes.subarray(start)
  const values = new Float32Array(body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength))
  return { shape, values }
}

interface RunRecord {
  id: string
  status: string
  iteration: number
  vocabularyId?: string | null
  params: { k: number; maxIterations: number; reduction?: string }
}

describe('Runs pages (Chromium)', () => {
  let server: TestServer
  let browser: TestBrowser
  let dir: string
  let hogPath: string

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'codebook-e2e-runs-'))
    // The demo digits' HOG vectors, made by the CLI as a user would (80,000 patches × 32).
    hogPath = join(dir, 'digits-hog.npy')
    await run(
      process.execPath,
      [
        '--conditions=@codebook/source',
        '--import',
        'tsx',
        'packages/runtime/src/cli/entry.ts',
        'hog',
        'data/digits.png',
        '--grid',
        '20x20',
        '--rows-per-class',
        '5',
        '--out',
        hogPath,
      ],
      { cwd: repoRoot },
    )
    server = await startTestServer()
    browser = await launchBrowser({ baseURL: server.url })
  })

  afterAll(async () => {
    await browser?.close()
    await server?.close()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('uploads HOG vectors, runs K-means from the form, watches the chart grow and exports the .npy', async () => {
    const { page } = browser
    // The UI takes the API token from the first URL it opens.
    await page.goto(server.uiUrl)
    await page.waitForURL(/\/datasets/)
    await page.getByText('Server ok').waitFor()

    // Upload through the UI (tus), as NumPy.
    await page.getByLabel('Choose a dataset file').setInputFiles(hogPath)
    await page.getByLabel('Format').selectOption('npy')
    await page.getByRole('button', { name: 'Upload', exact: true }).click()
    const row = page.locator('tbody tr', { hasText: 'digits-hog' })
    await row.locator('[data-status="ready"]').waitFor({ timeout: 60_000 })

    // The launch form: k 16, 2 workers, 30 iterations, tol 0 (no early stop on inertia). An
    // iteration takes ~30 ms here and the page renders every 100 ms: 30 leave several renders mid-run.
    await page.getByRole('link', { name: 'Runs', exact: true }).click()
    await page.waitForURL(/\/runs$/)
    await page.getByLabel('k (centroids)').fill('16')
    await page.getByLabel('Max iterations').fill('30')
    await page.getByLabel('Workers').fill('2')
    await page.getByLabel('tol').fill('0')
    // The reduce/combine stage along the Fibonacci-stat tree instead of the default regroup.
    await page.getByLabel('Reduction').selectOption('fibonacci')
    await browser.screenshot('runs-01-form')

    // From now on (the run page is a client-side navigation: same document), record every bar
    // count the stage chart is handed, once per frame.
    await page.evaluate(() => {
      const seen: number[] = []
      ;(window as unknown as { __bars: number[] }).__bars = seen
      const tick = () => {
        const el = document.querySelector('[data-testid="stage-chart"]')
        const bars = el ? Number(el.getAttribute('data-bars')) : 0
        if (bars !== (seen.at(-1) ?? 0)) seen.push(bars)
        requestAnimationFrame(tick)
      }
      requestAnimationFrame(tick)
    })
    await page.getByRole('button', { name: 'Start run' }).click()
    await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/)
    const runId = page.url().split('/').pop()!

    // Mid-run: some bars drawn, not all.
    await page.waitForFunction(() => {
      const bars = (window as unknown as { __bars: number[] }).__bars
      return bars.length > 0 && (bars.at(-1) ?? 0) < 30
    })
    await browser.screenshot('runs-02-live')

    await page.locator('h1 [data-status="succeeded"]').waitFor({ timeout: 120_000 })
    await page.getByText('Iteration 30 / 30').waitFor()
    await page.locator('[data-testid="stage-chart"][data-bars="30"]').waitFor()
    const bars = await page.evaluate(() => (window as unknown as { __bars: number[] }).__bars)
    // The chart grew in steps while iterations arrived: at least two counts, one or more below 30, increasing, ending at 30.
    expect(bars.at(-1)).toBe(30)
    expect(bars.filter((b) => b > 0 && b < 30).length).toBeGreaterThanOrEqual(1)
    expect(bars.length).toBeGreaterThanOrEqual(2)
    for (let i = 1; i < bars.length; i++) expect(bars[i]).toBeGreaterThan(bars[i - 1]!)

    // The log and the worker table are filled from the same stream.
    await page.getByTestId('worker-table').waitFor()
    expect(await page.getByTestId('worker-table').locator('tbody tr').count()).toBe(2)
    await browser.screenshot('runs-03-succeeded')

    // Export .npy through the link; the download equals the API's export, k × d float32.
    const record = (await (await fetch(`${server.url}/api/runs/${runId}`)).json()) as RunRecord
    expect(record).toMatchObject({ status: 'succeeded', iteration: 30, params: { reduction: 'fibonacci' } })
    const vocabularyId = record.vocabularyId!
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'npy', exact: true }).click(),
    ])
    const downloaded = await readFile((await download.path())!)
    const api = Buffer.from(
      await (await fetch(`${server.url}/api/vocabularies/${vocabularyId}/export?format=npy`)).arrayBuffer(),
    )
    expect(downloaded.equals(api)).toBe(true)
    const { shape, values } = readNpyF32(downloaded)
    expect(shape).toEqual([16, 32])
    expect(values.length).toBe(16 * 32)
    expect(values.every((v) => Number.isFinite(v))).toBe(true)
  })

  it('compares two runs: one line per run in the legend, the table lists both', async () => {
    const { page } = browser
    const runs = ((await (await fetch(`${server.url}/api/runs`)).json()) as { runs: RunRecord[] }).runs
    const first = runs[0]!
    // A second run on the same dataset with another broadcast, through the API.
    const datasetId = (
      (await (await fetch(`${server.url}/api/runs/${first.id}`)).json()) as { datasetId: string }
    ).datasetId
    const res = await fetch(`${server.url}/api/runs`, {
      method: 'POST',
      headers: writeHeaders(server),
      body: JSON.stringify({ datasetId, k: 16, maxIterations: 10, workers: 2, tol: 0, broadcast: 'mst' }),
    })
    expect(res.status).toBe(201)
    const second = (await res.json()) as RunRecord
    await page.goto('/runs')
    await page
      .locator(`tr[data-run-id="${second.id}"] [data-status="succeeded"]`)
      .waitFor({ timeout: 120_000 })

    await page.getByLabel(`Compare run ${first.id.slice(0, 8)}`).check()
    await page.getByLabel(`Compare run ${second.id.slice(0, 8)}`).check()
    await page.getByRole('link', { name: 'Compare 2 runs' }).click()
    await page.waitForURL(/\/runs\/compare\?ids=/)
    const table = page.getByTestId('compare-table')
    await table.locator(`tr[data-run-id="${second.id}"]`).waitFor()
    const texts = await table.locator('tbody tr').allInnerTexts()
    expect(texts).toHaveLength(2)
    expect(texts.join('\n')).toContain('mst')
    expect(texts.join('\n')).toContain('chain')
    await page.getByLabel('Stage', { exact: true }).selectOption('map')
    await browser.screenshot('runs-04-compare')
  })

  it("shows an approximate run's search, sampled recall and inertia gap as its workers reported them", async () => {
    const { page } = browser
    const runs = ((await (await fetch(`${server.url}/api/runs`)).json()) as { runs: RunRecord[] }).runs
    const datasetId = (
      (await (await fetch(`${server.url}/api/runs/${runs.at(-1)!.id}`)).json()) as { datasetId: string }
    ).datasetId
    // Two workers walking the centroid graph after their first HNSW search (usearch in each worker).
    const res = await fetch(`${server.url}/api/runs`, {
      method: 'POST',
      headers: writeHeaders(server),
      body: JSON.stringify({
        datasetId,
        k: 64,
        maxIterations: 4,
        workers: 2,
        tol: 0,
        assignment: 'approximate',
        approximateSearch: 'walk',
      }),
    })
    expect(res.status).toBe(201)
    const created = (await res.json()) as RunRecord
    await page.goto(`/runs/${created.id}`)
    await page.locator('h1 [data-status="succeeded"]').waitFor({ timeout: 120_000 })
    // The last stored iteration report, from the workers through the server's event log.
    const { events } = (await (
      await fetch(`${server.url}/api/runs/${created.id}/events?after=0&limit=1000`)
    ).json()) as {
      events: Array<{
        type: string
        data: {
          assignmentRecall?: number
          assignmentInertiaGap?: number
          workers: Array<{ approximateSearch?: string }>
        }
      }>
    }
    const last = events.filter((e) => e.type === 'iteration').at(-1)!.data
    expect(last.assignmentRecall).toBeGreaterThan(0)
    const searches = [...new Set(last.workers.map((w) => w.approximateSearch))].sort().join(' + ')
    expect(searches).toMatch(/^(index|walk|index \+ walk)$/)
    const hint = page.getByText(`approximate (${searches}), recall ${last.assignmentRecall!.toFixed(3)}`)
    await hint.waitFor()
    expect(await hint.textContent()).toContain(
      `sample inertia +${(100 * last.assignmentInertiaGap!).toFixed(2)} %`,
    )
    // The parameters say how it assigned (its `algorithm` plays no part then).
    const params = page.locator('dl.params')
    await params.getByText('approximate (walk)', { exact: true }).waitFor()
    expect(await params.locator('div', { hasText: 'algorithm' }).locator('dd').textContent()).toBe('—')
    // So does the log's start line.
    await page.getByText(/worker processes started .*approximate assignment \(walk\), kernel/).waitFor()
    await browser.screenshot('runs-05-approximate')
  })

  it('cancels a running run from its page and resumes it from the checkpoint to the end', async () => {
    const { page } = browser
    const ITERATIONS = 300
    const runs = (
      (await (await fetch(`${server.url}/api/runs`)).json()) as {
        runs: (RunRecord & { datasetId: string })[]
      }
    ).runs
    const params = { datasetId: runs[0]!.datasetId, k: 16, maxIterations: ITERATIONS, workers: 2, tol: 0 }
    const launch = async (): Promise<RunRecord> => {
      const res = await fetch(`${server.url}/api/runs`, {
        method: 'POST',
        headers: writeHeaders(server),
        body: JSON.stringify(params),
      })
      expect(res.status).toBe(201)
      return (await res.json()) as RunRecord
    }
    const created = await launch()
    await page.goto(`/runs/${created.id}`)
    // A few iterations in, cancel. ITERATIONS leaves a wide margin: an iteration here takes ~30 ms, so
    // a run of 40 could end between the click and the abort (then it is cancelled at its last iteration).
    await page.waitForFunction(() => {
      const el = document.querySelector('[data-testid="stage-chart"]')
      return el !== null && Number(el.getAttribute('data-bars')) >= 3
    })
    await page.getByRole('button', { name: 'Cancel run' }).click()
    await page.locator('h1 [data-status="cancelled"]').waitFor({ timeout: 60_000 })
    const cancelled = (await (await fetch(`${server.url}/api/runs/${created.id}`)).json()) as RunRecord & {
      checkpointIteration: number
    }
    expect(cancelled.status).toBe('cancelled')
    expect(cancelled.checkpointIteration).toBeGreaterThan(0)
    expect(cancelled.checkpointIteration).toBeLessThan(ITERATIONS)
    // The resume button names the checkpoint it continues from.
    const resume = page.getByRole('button', {
      name: `Resume from iteration ${cancelled.checkpointIteration}`,
    })
    await browser.screenshot('runs-05-cancelled')
    await resume.click()
    await page.locator('h1 [data-status="succeeded"]').waitFor({ timeout: 120_000 })
    await page.getByText(new RegExp(`^Iteration \\d+ / ${ITERATIONS}$`)).waitFor()
    expect(await page.getByRole('button', { name: /^Resume/ }).count()).toBe(0)
    await browser.screenshot('runs-06-resumed')
    // To the end, exactly as an undisturbed run of the same parameters: it stops at the same
    // iteration (ITERATIONS, or earlier where no vector changes cluster: tol 0) on the same vocabulary.
    const undisturbed = await launch()
    const done = await server.app.runs.settled(created.id)
    const reference = await server.app.runs.settled(undisturbed.id)
    expect(reference.status).toBe('succeeded')
    expect(done).toMatchObject({ status: 'succeeded', iteration: reference.iteration })
    expect(done.iteration).toBeGreaterThan(cancelled.checkpointIteration)
    await page.getByText(`Iteration ${done.iteration} / ${ITERATIONS}`).waitFor()
    // Stopped by tol before ITERATIONS: the page says so, and the bar is full.
    expect(await page.getByTestId('run-converged').count()).toBe(done.iteration < ITERATIONS ? 1 : 0)
    expect(await page.getByRole('progressbar', { name: 'Iterations' }).getAttribute('aria-valuenow')).toBe(
      '100',
    )
    const vocabulary = async (r: RunRecord) =>
      Buffer.from(
        await (
          await fetch(`${server.url}/api/vocabularies/${r.vocabularyId}/export?format=npy`)
        ).arrayBuffer(),
      )
    expect((await vocabulary(done)).equals(await vocabulary(reference))).toBe(true)
  })
})
