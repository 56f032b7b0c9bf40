/**
 * The data behind docs/reproductions.md's "Geo-distributed process mapping": Zhou & He's
 * Figures 6 (gain per pattern), 7 (gain vs scale), 9 (CDF of random mappings) and 10 (best of
 * K random mappings vs K), recomputed with Codebook's planners on the ec2-4 profile, constraint
 * ratio 0.2. Writes JSON for `charts.ts`.
 *
 *   npx tsx bench/mapping/reproduce.ts --out ../../docs/img/mapping-data.json [--seeds 3] [--samples 100000]
 */
import { writeFile } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import type { PatternOptions } from '../../src/mapping/patterns.ts'
import { planMapping } from '../../src/mapping/plan-mapping.ts'

const { values } = parseArgs({
  options: {
    out: { type: 'string', default: 'mapping-data.json' },
    seeds: { type: 'string', default: '3' },
    samples: { type: 'string', default: '100000' },
    scales: { type: 'string', default: '64,256,1024,4096,8192' },
    'mpipp-max-n': { type: 'string', default: '256' },
  },
})
const seeds = Array.from({ length: Number(values.seeds) }, (_, i) => i + 1)
const samples = Number(values.samples)
const scales = values.scales.split(',').map(Number)
const mpippMaxN = Number(values['mpipp-max-n'])

/** The five patterns of the targets, plus K-means with ring aggregation (a sparse K-means). */
const patterns: { name: string; pattern: string; options?: PatternOptions; maxN?: number }[] = [
  { name: 'kmeans', pattern: 'kmeans', maxN: 1024 },
  { name: 'kmeans-ring', pattern: 'kmeans', options: { aggregation: 'ring' }, maxN: 1024 },
  { name: 'bt', pattern: 'bt' },
  { name: 'sp', pattern: 'sp' },
  { name: 'lu', pattern: 'lu' },
  { name: 'dnn', pattern: 'dnn' },
]

const mean = (a: number[]) => a.reduce((x, y) => x + y, 0) / a.length
const log = (s: string) => process.stderr.write(`${s}\n`)

// Figure 6: gain of geo over each baseline, N = 64 (4 sites × 16 nodes), mean over seeds.
// "random" is the mean cost of the Monte Carlo sample (the expected random mapping).
const perPattern = []
const cdf: Record<string, number[]> = {}
const bestOfK: Record<string, { k: number; best: number }[]> = {}
for (const p of patterns) {
  const rows = seeds.map((seed) => {
    const r = planMapping({
      profile: 'ec2-4',
      pattern: p.pattern,
      processes: 64,
      ...(p.options ? { patternOptions: p.options } : {}),
      constraintRatio: 0.2,
      seed,
      monteCarlo: samples,
      keepSamples: seed === 1,
    })
    const cost = Object.fromEntries(r.plans.map((x) => [x.algorithm, x.cost]))
    const ms = Object.fromEntries(r.plans.map((x) => [x.algorithm, x.planMs]))
    const mc = r.monteCarlo!
    if (mc.costs) {
      // Figure 9: random costs relative to geo, sorted (the CDF's x values at 1,000 quantiles).
      const sorted = Float64Array.from(mc.costs, (c) => c / cost.geo!).sort()
      cdf[p.name] = Array.from(
        { length: 1001 },
        (_, q) => sorted[Math.min(sorted.length - 1, Math.floor((q / 1000) * (sorted.length - 1)))]!,
      )
      // Figure 10: best of the first K samples relative to geo.
      const points: { k: number; best: number }[] = []
      let best = Number.POSITIVE_INFINITY
      let next = 1
      mc.costs.forEach((c, i) => {
        best = Math.min(best, c)
        if (i + 1 === next || i + 1 === mc.costs!.length) {
          points.push({ k: i + 1, best: best / cost.geo! })
          next = Math.ceil(next * 1.25)
        }
      })
      bestOfK[p.name] = points
    }
    return {
      cost,
      ms,
      randomMean: mc.mean,
      randomBest: mc.best,
      fractionBetterThanGeo: mc.fractionBetterThanGeo!,
    }
  })
  const gain = (base: (r: (typeof rows)[number]) => number) =>
    mean(rows.map((r) => 1 - r.cost.geo! / base(r)))
  const row = {
    pattern: p.name,
    gainOverRandom: gain((r) => r.randomMean),
    gainOverGreedy: gain((r) => r.cost.greedy!),
    gainOverMpipp: gain((r) => r.cost.mpipp!),
    fractionBetterThanGeo: mean(rows.map((r) => r.fractionBetterThanGeo)),
    geoMs: mean(rows.map((r) => r.ms.geo!)),
    seeds: rows,
  }
  log(
    `${p.name}: gain over random ${(row.gainOverRandom * 100).toFixed(1)} %, greedy ${(row.gainOverGreedy * 100).toFixed(1)} %, mpipp ${(row.gainOverMpipp * 100).toFixed(1)} %, random better than geo ${(row.fractionBetterThanGeo * 100).toFixed(4)} %`,
  )
  perPattern.push(row)
}

// Figure 7: gain vs scale (4 sites, N / 4 nodes each), seed 1; MPIPP up to `mpipp-max-n`.
const perScale = []
for (const p of patterns)
  for (const n of scales) {
    if (p.maxN && n > p.maxN) continue
    const r = planMapping({
      profile: 'ec2-4',
      pattern: p.pattern,
      processes: n,
      ...(p.options ? { patternOptions: p.options } : {}),
      constraintRatio: 0.2,
      seed: 1,
      planners: n <= mpippMaxN ? ['geo', 'greedy', 'mpipp'] : ['geo', 'greedy'],
      monteCarlo: 100,
    })
    const cost = Object.fromEntries(r.plans.map((x) => [x.algorithm, x.cost]))
    const row = {
      pattern: p.name,
      processes: n,
      geoMs: r.plans[0]!.planMs,
      gainOverRandom: 1 - cost.geo! / r.monteCarlo!.mean,
      gainOverGreedy: 1 - cost.geo! / cost.greedy!,
      gainOverMpipp: cost.mpipp === undefined ? null : 1 - cost.geo! / cost.mpipp,
    }
    log(
      `${p.name} N=${n}: geo ${row.geoMs.toFixed(0)} ms, gain over random ${(row.gainOverRandom * 100).toFixed(1)} %`,
    )
    perScale.push(row)
  }

await writeFile(
  values.out,
  `${JSON.stringify({ date: new Date().toISOString(), samples, seeds, perPattern, perScale, cdf, bestOfK })}\n`,
)
