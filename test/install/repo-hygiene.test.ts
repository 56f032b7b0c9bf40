import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

// The repository stands alone: what its docs and code rely on is written inside it.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const tracked = async () =>
  (await promisify(execFile)('git', ['ls-files'], { cwd: root, maxBuffer: 64 * 1024 * 1024 })).stdout
    .split('\n')
    .filter((f) => /\.(ts|tsx|js|mjs|json|md|sql|css|html|sh)$/.test(f) && f !== 'package-lock.json')

describe('the repository stands alone', () => {
  it('cites no file outside it (design notes, sibling folders, absolute paths of a machine)', async () => {
    const outside = /\.\.\/shared\b|\bDESIGN\.md\b|\bSTYLE\.md\b|\/work\/(?:main|shared)\b/
    const citing = (await tracked()).filter((f) => outside.test(readFileSync(join(root, f), 'utf8')))
    // This file names the patterns it looks for.
    expect(citing.filter((f) => f !== 'test/install/repo-hygiene.test.ts')).toEqual([])
  })
})
