import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { renderReport, reportPath } from './render.ts'

describe('docs/reproductions.md', () => {
  it('is what the committed result files give (regenerate with `npm run reproductions`)', () => {
    expect(readFileSync(reportPath, 'utf8')).toBe(renderReport())
  })
})
