import { describe, expect, it } from 'vitest'
import {
  baseName,
  countOf,
  decimalsFor,
  formatBytes,
  formatDuration,
  formatFixed,
  formatPercent,
} from './format.ts'

describe('formatBytes', () => {
  it('uses decimal units with three significant digits', () => {
    expect(formatBytes(0)).toBe('0 B')
    expect(formatBytes(999)).toBe('999 B')
    expect(formatBytes(4_190_000)).toBe('4.19 MB')
    expect(formatBytes(27_900_000)).toBe('27.9 MB')
    expect(formatBytes(812_000)).toBe('812 KB')
    expect(formatBytes(64 * 1024 ** 3)).toBe('68.7 GB')
    expect(formatBytes(null)).toBe('—')
  })
})

describe('formatDuration', () => {
  it('switches units at a minute and an hour', () => {
    expect(formatDuration(42.4)).toBe('42 s')
    expect(formatDuration(185)).toBe('3 min 05 s')
    expect(formatDuration(7620)).toBe('2 h 07 min')
    expect(formatDuration(null)).toBe('—')
  })
})

describe('formatPercent', () => {
  it('floors, so 100% means done', () => {
    expect(formatPercent(0.999)).toBe('99%')
    expect(formatPercent(1)).toBe('100%')
    expect(formatPercent(-0.5)).toBe('0%')
  })
})

describe('decimalsFor', () => {
  it('gives the largest magnitude four significant digits', () => {
    expect(decimalsFor([0.538, 0.095])).toBe(4)
    expect(decimalsFor([3.67, 5.57])).toBe(3)
    expect(decimalsFor([12.5, 3])).toBe(2)
    expect(decimalsFor([1534.2])).toBe(0)
    expect(decimalsFor([0, 255, 17])).toBe(0)
    expect(formatFixed(Math.fround(0.538), decimalsFor([0.538]))).toBe('0.5380')
  })
})

describe('baseName', () => {
  it('drops the extension and a .gz before it', () => {
    expect(baseName('patches.txt')).toBe('patches')
    expect(baseName('hog.txt.gz')).toBe('hog')
    expect(baseName('sift.1M.fvecs')).toBe('sift.1M')
    expect(baseName('README')).toBe('README')
    expect(baseName('.hidden')).toBe('.hidden')
  })
})

describe('countOf', () => {
  it('is singular for exactly one', () => {
    expect(countOf(1, 'node')).toBe('1 node')
    expect(countOf(0, 'node')).toBe('0 nodes')
    expect(countOf(1500, 'class', 'classes')).toBe('1,500 classes')
  })
})
