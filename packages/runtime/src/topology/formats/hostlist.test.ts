import { describe, expect, it } from 'vitest'
import { createRng } from '../../random/rng.ts'
import { compressHostlist, expandHostlist } from './hostlist.ts'

describe('expandHostlist', () => {
  it('expands ranges, lists, zero padding and several bracket groups as Slurm does', () => {
    expect(expandHostlist('tux[0-3,7]')).toEqual(['tux0', 'tux1', 'tux2', 'tux3', 'tux7'])
    expect(expandHostlist('tux[0-1],tux[10-12],db')).toEqual([
      'tux0',
      'tux1',
      'tux10',
      'tux11',
      'tux12',
      'db',
    ])
    expect(expandHostlist('n[008-011]')).toEqual(['n008', 'n009', 'n010', 'n011'])
    expect(expandHostlist('n[8-10]')).toEqual(['n8', 'n9', 'n10'])
    expect(expandHostlist('r[1-2]n[1-2]')).toEqual(['r1n1', 'r1n2', 'r2n1', 'r2n2'])
    expect(expandHostlist('a[1-2]-ib')).toEqual(['a1-ib', 'a2-ib'])
    expect(expandHostlist('')).toEqual([])
  })

  it('rejects malformed lists with a coded error', () => {
    for (const bad of ['tux[0-3', 'tux0-3]', 'tux[3-1]', 'tux[a-b]', 'a,,b', 'n[[1]]', 'n[0-99999999]'])
      expect(() => expandHostlist(bad), bad).toThrow(
        expect.objectContaining({ code: 'TOPOLOGY_BAD_HOSTLIST' }),
      )
  })
})

describe('compressHostlist', () => {
  it('writes the common cases compactly', () => {
    expect(compressHostlist(['tux0', 'tux1', 'tux2', 'tux3', 'tux7'])).toBe('tux[0-3,7]')
    expect(compressHostlist(Array.from({ length: 10 }, (_, i) => `n${String(i + 1).padStart(3, '0')}`))).toBe(
      'n[001-010]',
    )
    expect(compressHostlist(['n8', 'n9', 'n10', 'db'])).toBe('n[8-10],db')
    expect(compressHostlist(['s0'])).toBe('s0')
  })

  it('is the inverse of expandHostlist on seeded random name lists, order included', () => {
    const rng = createRng(42)
    for (let trial = 0; trial < 200; trial++) {
      const names: string[] = []
      const seen = new Set<string>()
      const count = 1 + rng.int(30)
      while (names.length < count) {
        const prefix = ['tux', 'n', 'r1n', 'gpu-', 'x'][rng.int(5)]!
        const width = rng.int(2) === 0 ? 0 : 3
        const suffix = rng.int(4) === 0 ? '-ib' : ''
        const name = `${prefix}${String(rng.int(25)).padStart(width, '0')}${suffix}`
        if (!seen.has(name)) {
          seen.add(name)
          names.push(name)
        }
      }
      // Runs of consecutive numbers make the ranges non-trivial.
      if (trial % 2 === 0) names.sort()
      expect(expandHostlist(compressHostlist(names))).toEqual(names)
    }
  })

  it('refuses names a hostlist cannot carry', () => {
    expect(() => compressHostlist(['a,b'])).toThrow(
      expect.objectContaining({ code: 'TOPOLOGY_UNEXPORTABLE' }),
    )
  })
})
