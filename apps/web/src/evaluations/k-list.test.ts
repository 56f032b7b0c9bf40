import { describe, expect, it } from 'vitest'
import { DEFAULT_K_LIST, formatKList, K_LIST_MAX, K_MAX, parseKList } from './k-list.ts'

describe('parseKList', () => {
  it('parses the default list', () => {
    expect(parseKList(DEFAULT_K_LIST)).toEqual({ ok: true, ks: [16, 64, 256, 1024] })
  })

  it('accepts commas, spaces and semicolons, and sorts ascending', () => {
    expect(parseKList(' 256 16,,64 ;8 ')).toEqual({ ok: true, ks: [8, 16, 64, 256] })
  })

  it('round-trips through formatKList', () => {
    const parsed = parseKList(formatKList([8, 16, 4096]))
    expect(parsed).toEqual({ ok: true, ks: [8, 16, 4096] })
  })

  it.each([
    ['', 'at least one'],
    ['16, abc', 'Entry 2 ("abc") is not a whole number'],
    ['16, 2.5', 'Entry 2 ("2.5")'],
    ['-4', 'Entry 1 ("-4")'],
    ['1', 'k = 1 is out of range'],
    [String(K_MAX + 1), `k = ${K_MAX + 1} is out of range`],
    ['16 64 16', 'k = 16 is listed twice'],
  ])('rejects %j naming the entry', (text, message) => {
    const r = parseKList(text)
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.error).toContain(message)
  })

  it('caps the number of sizes', () => {
    const many = Array.from({ length: K_LIST_MAX + 1 }, (_, i) => i + 2).join(',')
    expect(parseKList(many)).toEqual({ ok: false, error: `At most ${K_LIST_MAX} values of k` })
    expect(parseKList(Array.from({ length: K_LIST_MAX }, (_, i) => i + 2).join(',')).ok).toBe(true)
  })
})
