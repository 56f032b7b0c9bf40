import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

// The framework is the floor applications and collectives build on (docs/ARCHITECTURE.md): it may
// use the transport and the error types, never a collective, an application or the K-means code.
const allowed = [/^\.\/[\w-]+\.ts$/, /^\.\.\/transport\//, /^\.\.\/errors\.ts$/]

describe('framework boundaries', () => {
  const dir = new URL('.', import.meta.url).pathname
  const sources = readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))

  it.each(sources)('%s imports only the framework, the transport and the errors', (file) => {
    const text = readFileSync(join(dir, file), 'utf8')
    const relative = [...text.matchAll(/from '(\.[^']+)'/g)].map((m) => m[1] as string)
    expect(relative.filter((path) => !allowed.some((rule) => rule.test(path)))).toEqual([])
  })
})
