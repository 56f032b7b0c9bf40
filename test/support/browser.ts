import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core'
import { repoRoot } from './server.ts'

/** Where tests save screenshots (gitignored). */
export const artifactsDir = join(repoRoot, 'test/artifacts')

// Flags for a headless Chromium in a container: no sandbox (no user namespaces), no GPU, and no
// background traffic to Google services (the machine has no internet; those requests only add noise).
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/** A launched Chromium with one context and page. */
export interface TestBrowser {
  browser: Browser
  context: BrowserContext
  page: Page
  /** Saves a full-page PNG screenshot to `test/artifacts/<name>.png` and returns its path. */
  screenshot(name: string, page?: Page): Promise<string>
  close(): Promise<void>
}

/**
 * Launches the system Chromium (Debian's `/usr/bin/chromium`, or `$CHROMIUM_PATH`) headless with
 * Playwright and opens one page with a desktop viewport. `baseURL` makes `page.goto('/datasets')` work.
 */
export async function launchBrowser(options: { baseURL: string }): Promise<TestBrowser> {
  await mkdir(artifactsDir, { recursive: true })
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
  })
  try {
    const context = await browser.newContext({
      baseURL: options.baseURL,
      viewport: { width: 1360, height: 900 },
      deviceScaleFactor: 1,
    })
    const page = await context.newPage()
    return {
      browser,
      context,
      page,
      async screenshot(name, target = page) {
        const path = join(artifactsDir, `${name}.png`)
        await target.screenshot({ path, fullPage: true })
        return path
      },
      close: () => browser.close(),
    }
  } catch (err) {
    await browser.close()
    throw err
  }
}
