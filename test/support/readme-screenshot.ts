/**
 * Regenerates docs/screenshot-datasets.png: a dataset detail page, after uploading a synthetic
 * HOG-like file through the UI on a fresh server. Run after `npx turbo run build`, from test/:
 *   npx tsx --conditions=@codebook/source support/readme-screenshot.ts
 */
import { createWriteStream } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRng } from '@codebook/runtime/kmeans'
import { launchBrowser } from './browser.ts'
import { repoRoot, startTestServer } from './server.ts'

/**
 * 4 × 4 cells × 8 orientation bins (128-d, SIFT-like layout), each cell with its own dominant
 * orientation, rows with varying contrast: so norms and per-dimension ranges have some shape.
 */
async function writeSyntheticHog(path: string, n: number): Promise<void> {
  const rng = createRng(2026)
  const out = createWriteStream(path)
  const phase = Array.from({ length: 16 }, (_, c) => (c * 2.399) % (2 * Math.PI))
  for (let r = 0; r < n; r++) {
    const contrast = Math.exp(0.35 * rng.normal())
    const values: string[] = []
    for (let j = 0; j < 128; j++) {
      const profile = 0.3 + 0.22 * Math.cos((2 * Math.PI * (j % 8)) / 8 + phase[Math.floor(j / 8)]!)
      values.push(Math.max(0, contrast * profile * (1 + 0.4 * rng.normal())).toFixed(3))
    }
    out.write(`${Math.floor(r / 256)} ${Math.floor((r % 256) / 16)} ${r % 16} ${values.join(' ')}\n`)
  }
  out.end()
  await new Promise<void>((resolve) => out.on('finish', () => resolve()))
}

const dir = await mkdtemp(join(tmpdir(), 'codebook-readme-'))
const server = await startTestServer()
const browser = await launchBrowser({ baseURL: server.url })
try {
  const file = join(dir, 'street-patches-hog.txt')
  await writeSyntheticHog(file, 20_000)
  const { page } = browser
  await page.goto('/datasets')
  await page.getByLabel('Choose a dataset file').setInputFiles(file)
  await page.getByRole('button', { name: 'Upload', exact: true }).click()
  const row = page.locator('tbody tr', { hasText: 'street-patches-hog' })
  await row.locator('[data-status="ready"]').waitFor({ timeout: 120_000 })
  await row.click()
  await page.locator('.chart canvas').first().waitFor()
  await page.locator('tr[data-row-index]').first().waitFor()
  // Tall enough to show the per-dimension chart too.
  await page.setViewportSize({ width: 1360, height: 1130 })
  await page.waitForTimeout(500) // ECharts' first frame after the resize
  const path = join(repoRoot, 'docs/screenshot-datasets.png')
  await page.screenshot({ path, fullPage: false })
  console.log(`wrote ${path}`)
} finally {
  await browser.close()
  await server.close()
  await rm(dir, { recursive: true, force: true })
}
