import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, type TestBrowser } from '../support/browser.ts'
import { writeHogFixture } from '../support/hog-file.ts'
import { startTestServer, type TestServer } from '../support/server.ts'

// The Vocabularies page against a real server (in-process, PGlite, real worker processes and the
// real assignment child process) in a real Chromium: two finished runs leave two vocabularies;
// the page lists them, downloads a format and the assignments, and deletes one.

const N = 1500
const D = 12
const K = 6

/** The HOG text file parsed back independently: ids and values per row. */
async function readHogText(path: string): Promise<{ ids: number[][]; values: Float32Array }> {
  const lines = (await readFile(path, 'utf8')).trimEnd().split('\n')
  const values = new Float32Array(lines.length * D)
  const ids = lines.map((line, i) => {
    const parts = line.split(/\s+/).map(Number)
    values.set(parts.slice(3), i * D)
    return parts.slice(0, 3)
  })
  return { ids, values }
}

/** Centroids from a float32 .npy download (v1.0 header, little-endian). */
function npyValues(bytes: Buffer): Float32Array {
  const start = 10 + bytes.readUInt16LE(8)
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset + start, bytes.byteOffset + bytes.length))
}

interface RunRecord {
  id: string
  status: string
  vocabularyId?: string | null
}

describe('Vocabularies page (Chromium)', () => {
  let server: TestServer
  let browser: TestBrowser
  let dir: string
  let hogPath: string
  const runs: RunRecord[] = []

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'codebook-e2e-vocab-'))
    hogPath = (await writeHogFixture(dir, { filename: 'patches.txt', n: N, d: D, seed: 4 })).path
    server = await startTestServer()
    const up = await fetch(`${server.url}/api/datasets?name=patches&format=hog-text&wait=true`, {
      method: 'POST',
      headers: { ...server.authHeaders, 'content-type': 'text/plain' },
      body: await readFile(hogPath),
    })
    expect(up.status).toBe(201)
    const datasetId = ((await up.json()) as { id: string }).id
    // Two small finished runs, the first one (older) with k = K.
    for (const k of [K, 4]) {
      const res = await fetch(`${server.url}/api/runs`, {
        method: 'POST',
        headers: { ...server.authHeaders, 'content-type': 'application/json' },
        body: JSON.stringify({ datasetId, k, maxIterations: 5, workers: 1 }),
      })
      expect(res.status).toBe(201)
      const run = await server.app.runs.settled(((await res.json()) as RunRecord).id)
      expect(run.status).toBe('succeeded')
      runs.push(run)
    }
    browser = await launchBrowser({ baseURL: server.url })
  })

  afterAll(async () => {
    await browser?.close()
    await server?.close()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('lists the vocabularies, downloads a format and the assignments, evaluates and deletes one', async () => {
    const { page } = browser
    await page.goto(server.uiUrl)
    await page.getByText('Server ok').waitFor()
    // No "soon" entries in the navigation.
    expect(await page.locator('.sidebar').getByText('soon').count()).toBe(0)
    await page.getByRole('link', { name: 'Vocabularies', exact: true }).click()
    await page.waitForURL(/\/vocabularies$/)

    const [older, newer] = runs as [RunRecord, RunRecord]
    const olderRow = page.locator(`tr[data-vocabulary-id="${older.vocabularyId}"]`)
    const newerRow = page.locator(`tr[data-vocabulary-id="${newer.vocabularyId}"]`)
    await olderRow.waitFor()
    // Newest first; run and dataset are links.
    const ids = await page
      .locator('tbody tr')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-vocabulary-id')))
    expect(ids).toEqual([newer.vocabularyId, older.vocabularyId])
    expect(await olderRow.getByRole('link', { name: older.id.slice(0, 8) }).getAttribute('href')).toBe(
      `/runs/${older.id}`,
    )
    await olderRow.getByRole('link', { name: 'patches' }).waitFor()
    await browser.screenshot('vocabularies-01-list')

    // A format: the .npy download equals the API's export.
    const [centroidsDownload] = await Promise.all([
      page.waitForEvent('download'),
      olderRow.getByRole('link', { name: 'npy', exact: true }).first().click(),
    ])
    const centroidBytes = await readFile((await centroidsDownload.path())!)
    const api = Buffer.from(
      await (
        await fetch(`${server.url}/api/vocabularies/${older.vocabularyId}/export?format=npy`)
      ).arrayBuffer(),
    )
    expect(centroidBytes.equals(api)).toBe(true)

    // The assignments as CSV: every row's nearest centroid of the downloaded vocabulary, with its ids.
    const [assignmentsDownload] = await Promise.all([
      page.waitForEvent('download'),
      olderRow.locator('[data-assignments="csv"]').click(),
    ])
    const csv = (await readFile((await assignmentsDownload.path())!, 'utf8')).trimEnd().split('\n')
    expect(csv[0]).toBe('row,word,distance_sq,picture,picture_row,picture_col')
    expect(csv).toHaveLength(N + 1)
    const centroids = npyValues(centroidBytes)
    const data = await readHogText(hogPath)
    for (let i = 0; i < N; i++) {
      let best = Number.POSITIVE_INFINITY
      let word = -1
      for (let j = 0; j < K; j++) {
        let s = 0
        for (let t = 0; t < D; t++) s += (data.values[i * D + t]! - centroids[j * D + t]!) ** 2
        if (s < best) {
          best = s
          word = j
        }
      }
      const [row, w, dist, ...pictureIds] = csv[i + 1]!.split(',').map(Number)
      expect([row, w, pictureIds]).toEqual([i, word, data.ids[i]])
      expect(dist).toBeCloseTo(best, 9)
    }

    // Evaluate: the evaluation form opens with this vocabulary selected (id, k, d) and no k list;
    // its d (12) is not the HOG length of the default patch (32), which the form says before submit.
    await olderRow.getByRole('link', { name: 'Evaluate' }).click()
    await page.waitForURL(new RegExp(`/evaluations\\?vocabulary=${older.vocabularyId}$`))
    const selected = page.getByTestId('evaluation-vocabularies')
    const item = selected.locator(`li[data-vocabulary-id="${older.vocabularyId}"]`)
    await item.getByText(`k ${K}, d ${D}`).waitFor()
    expect(await page.getByLabel('Vocabulary sizes k').inputValue()).toBe('')
    await selected
      .getByText(`Vocabulary ${older.vocabularyId} has d = ${D}, but patch 8 gives HOG vectors of d = 32`)
      .waitFor()
    // Learned outside the evaluation's split: the form warns of leakage, naming its dataset.
    expect(await selected.getByTestId('vocabulary-leakage').textContent()).toContain(
      'A stored vocabulary was learned on “patches”, outside this evaluation’s train/test split',
    )
    await item.getByRole('button', { name: `Remove vocabulary ${older.vocabularyId}` }).click()
    await selected.waitFor({ state: 'detached' })
    await page.goBack()
    await newerRow.waitFor()

    // Delete the newer one through the confirm dialog; cancel first leaves it.
    await newerRow.getByRole('button', { name: 'Delete' }).click()
    const dialog = page.getByRole('dialog')
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await dialog.waitFor({ state: 'hidden' })
    await newerRow.getByRole('button', { name: 'Delete' }).click()
    await dialog.getByText(`Delete the vocabulary of run ${newer.id.slice(0, 8)} (k = 4)?`).waitFor()
    await browser.screenshot('vocabularies-02-delete-dialog')
    await dialog.getByRole('button', { name: 'Delete' }).click()
    await newerRow.waitFor({ state: 'detached' })
    await olderRow.waitFor()
    const list = (await (await fetch(`${server.url}/api/vocabularies`)).json()) as {
      vocabularies: { id: string; assignmentsBytes: number | null }[]
    }
    expect(list.vocabularies.map((v) => v.id)).toEqual([older.vocabularyId])
    expect(list.vocabularies[0]!.assignmentsBytes).toBeGreaterThan(0)
    const run = (await (await fetch(`${server.url}/api/runs/${newer.id}`)).json()) as RunRecord
    expect(run).toMatchObject({ status: 'succeeded', vocabularyId: null })
    await browser.screenshot('vocabularies-03-after-delete')
  })
})
