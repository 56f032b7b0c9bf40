import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import semver from 'semver'
import { describe, expect, it } from 'vitest'

// What a new user sees on `npm install` and `npm test`: no warning that means nothing to them,
// and a missing Chromium reported at once in one line.
const run = promisify(execFile)
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const readJson = (file: string) => JSON.parse(readFileSync(join(root, file), 'utf8'))

describe('install hygiene', () => {
  it('locks only packages whose declared engines accept the Node version the project declares', () => {
    const nodeRange: string = readJson('package.json').engines.node
    const oldest = semver.minVersion(nodeRange)!.version
    const packages: Record<string, { version?: string; engines?: { node?: string } }> =
      readJson('package-lock.json').packages
    const refusing = Object.entries(packages)
      .filter(([, p]) => p.engines?.node && !semver.satisfies(oldest, p.engines.node))
      .map(([path, p]) => `${path}@${p.version} wants node ${p.engines?.node}`)
    // Each one is an EBADENGINE warning at install on the oldest Node we claim to support.
    expect(refusing).toEqual([])
  })

  it('gives npm no project config it does not know and no install script left unreviewed', async () => {
    const version = await run('npm', ['pkg', 'get', 'name'], { cwd: root })
    expect(version.stderr).not.toMatch(/Unknown project config/)
    const scripts = await run('npm', ['install-scripts', 'ls'], { cwd: root })
    expect(`${scripts.stdout}${scripts.stderr}`).toMatch(/No packages with unreviewed install scripts/)
  })

  it('stops `npm test` at once with one line saying how to install Chromium when it is missing', async () => {
    const failure = await run('node', [join(root, 'scripts/require-chromium.mjs')], {
      env: { ...process.env, CHROMIUM_PATH: '/nonexistent/chromium' },
    }).catch((error: { code: number; stderr: string }) => error)
    expect('code' in failure && failure.code).toBe(1)
    const lines = (failure as { stderr: string }).stderr.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/apt-get install chromium/)
    expect(readJson('package.json').scripts.test).toMatch(/^node scripts\/require-chromium\.mjs && /)
  })
})
