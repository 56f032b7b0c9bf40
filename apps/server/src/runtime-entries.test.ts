import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

// The runtime is entered by concern (packages/runtime/package.json `exports`, docs/ARCHITECTURE.md):
// the server uses the product's entries, and only its simulate / plans / studies code the paper
// apparatus behind `/netsim`. There is no root entry: `@codebook/runtime` alone does not resolve.
const productEntries = ['errors', 'formats', 'images', 'topology', 'collectives', 'kmeans', 'evaluation']
const netsimUsers = [/^src\/topologies\/simulat[^/]*$/, /^src\/plans\//, /^src\/studies\//]

const serverRoot = new URL('..', import.meta.url).pathname

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sources(path)
    return /\.tsx?$/.test(entry.name) ? [path] : []
  })
}

/** Every `@codebook/runtime…` specifier a file names (static, type-only, dynamic or re-export). */
function runtimeSpecifiers(text: string): string[] {
  return [...text.matchAll(/['"](@codebook\/runtime(?:\/[^'"]*)?)['"]/g)].map((m) => m[1] as string)
}

const uses = ['src', 'bench'].flatMap((dir) =>
  sources(join(serverRoot, dir)).flatMap((file) => {
    const path = relative(serverRoot, file)
    if (path === 'src/runtime-entries.test.ts') return [] // this file names the entries as strings
    return runtimeSpecifiers(readFileSync(file, 'utf8')).map((specifier) => ({ path, specifier }))
  }),
)

describe('runtime entries used by the server', () => {
  it('finds the imports it checks', () => {
    expect(uses.length).toBeGreaterThan(50)
  })

  it('imports only the product entries, and /netsim only from simulate, plans and studies', () => {
    const violations = uses.filter(({ path, specifier }) => {
      const entry = specifier.slice('@codebook/runtime/'.length)
      if (productEntries.includes(entry)) return false
      return !(entry === 'netsim' && netsimUsers.some((rule) => rule.test(path)))
    })
    expect(violations).toEqual([])
  })

  it('names only entries the runtime exports', () => {
    const pkg = JSON.parse(readFileSync(join(serverRoot, '../../packages/runtime/package.json'), 'utf8'))
    const exported = Object.keys(pkg.exports as Record<string, unknown>)
    expect(exported.sort()).toEqual([...productEntries, 'netsim'].map((entry) => `./${entry}`).sort())
  })
})
