import { describe, expect, it } from 'vitest'
import { main } from '../main.ts'

async function study(args: string[]) {
  const out: string[] = []
  const err: string[] = []
  const [write, writeErr] = [process.stdout.write, process.stderr.write]
  process.stdout.write = ((s: string) => out.push(s) > 0) as typeof process.stdout.write
  process.stderr.write = ((s: string) => err.push(s) > 0) as typeof process.stderr.write
  try {
    const code = await main(['study', 'reductions', ...args])
    const lines = out
      .join('')
      .split('\n')
      .filter((l) => l.trim() !== '')
    return { code, lines, stderr: err.join('') }
  } finally {
    process.stdout.write = write
    process.stderr.write = writeErr
  }
}

describe('codebook study reductions', () => {
  it('prints one JSON line per (algorithm, cv, muC), reproducible from the seed', async () => {
    const args = ['--n', '16', '--cv', '0.1,1', '--mu-c', '0,0.5', '--runs', '300', '--seed', '4', '--json']
    const { code, lines } = await study(args)
    expect(code).toBe(0)
    const rows = lines.map((l) => JSON.parse(l))
    expect(rows).toHaveLength(16)
    expect(Object.keys(rows[0]).sort()).toEqual(['algorithm', 'cv', 'mean', 'muC', 'n', 'q10', 'q90', 'runs'])
    expect(rows.map((r) => `${r.algorithm}@${r.cv}/${r.muC}`).slice(0, 4)).toEqual([
      'binomial@0.1/0',
      'fibonacci@0.1/0',
      'tree-dyn@0.1/0',
      'noncommut-tree-dyn@0.1/0',
    ])
    for (const r of rows)
      expect(r.q10 <= r.mean && r.mean <= r.q90 && r.runs === 300 && r.n === 16).toBe(true)
    expect((await study(args)).lines).toEqual(lines)
  })

  it('--markov prints the simulated moments beside both closed forms', async () => {
    const { code, lines } = await study(['--markov', '--n', '6', '--runs', '2000', '--json'])
    expect(code).toBe(0)
    const row = JSON.parse(lines[0]!)
    expect(Object.keys(row).sort()).toEqual(
      [
        'formulaMean',
        'formulaVariance',
        'n',
        'paperFormulaMean',
        'runs',
        'simulatedMean',
        'simulatedVariance',
      ].sort(),
    )
    // n = 6: 1/3 + 1/2 + 1/2 + 1 + 1 = 10/3; the paper's 2·H(3) + 1/3 = 4.
    expect(row.formulaMean).toBeCloseTo(10 / 3, 12)
    expect(row.paperFormulaMean).toBeCloseTo(4, 12)
  })

  it('--grid prints Figure 4 cells: the ratio and the best method', async () => {
    const { code, lines } = await study(['--grid', '--n', '8', '--runs', '20', '--json'])
    expect(code).toBe(0)
    const rows = lines.map((l) => JSON.parse(l))
    expect(rows).toHaveLength(13 * 17)
    for (const r of rows) {
      expect(r.fibonacciOverTreeDyn).toBeCloseTo(r.means.fibonacci / r.means['tree-dyn'], 12)
      expect(Math.min(...Object.values(r.means as Record<string, number>))).toBe(r.means[r.best])
    }
  })

  it('bad input exits 2 with a coded message naming the option', async () => {
    for (const [args, pattern] of [
      [['--cv', '0.1,-1'], /BAD_OPTION: --cv/],
      [['--runs', '0'], /BAD_OPTION: --runs/],
      [['--algorithms', 'ring'], /BAD_OPTION: --algorithms: 'ring'/],
      [['--grid', '--markov'], /BAD_OPTION: --grid and --markov/],
      [['--markov', '--n', '1'], /BAD_PROCESS_COUNT/],
      [['--n', '20000', '--runs', '1'], /BAD_PROCESS_COUNT/],
    ] as const) {
      const { code, stderr } = await study([...args])
      expect(code).toBe(2)
      expect(stderr).toMatch(pattern)
    }
  })
})
