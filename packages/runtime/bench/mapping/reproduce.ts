/**
 * The data behind docs/reproductions.md's mapping charts and "Figs. 7, 9 and 10" tables: Zhou & He's
 * Figures 6 (gain per pattern), 7 (gain vs scale), 9 (CDF of random mappings) and 10 (best of
 * K random mappings vs K), recomputed with Codebook's planners on a site profile (the paper's
 * ec2-4 or azure-3), constraint ratio 0.2, for geo (Algorithm 1) and geo-refined. Writes the JSON
 * that `charts.ts` draws and the report (bench/reproductions) tabulates.
 *
 *   npx tsx bench/mapping/reproduce.ts --profile ec2-4 --out ../../docs/data/mapping-ec2-4.json \
 *     [--seeds 3] [--samples 100000] [--refine-max-ms 20000]
 */
import { writeFile } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import type { PatternOptions } from '../../src/mapping/patterns.ts'
import { planMapping } from '../../src/mapping/plan-mapping.ts'
import { fractionBelow } from '../../src/mapping/planners/monte-carlo.ts'

const { values } = parseArgs({
  options: {
    out: { type: 'string', default: 'mapping-data.json' },
    profile: { type: 'string', default: 'ec2-4' },
    seeds: { type: 'string', default: '3' },
    samples: { type: 'string', default: '100000' },
    scales: { type: 'string', default: '64,256,1024,4096,8192' },
    'mpipp-max-n': { type: 'string', default: '256' },
    'refine-max-ms': { type: 'string', default: '20000' },
  },
})
const seeds = Array.from({ length: Number(values.seeds) }, (_, i) => i + 1)
const samples = Number(values.samples)
const scales = values.scales.split(',').map(Number)
const mpippMaxN = Number(values['mpipp-max-n'])
const geoRefined = { maxMs: Number(values['refine-max-ms']) }
const profile = values.profile

/** The five patterns of the targets (K-means as planned across sites: ring), plus K-means with three-stage aggregation and DNN with a ring all-reduce. */
const patterns: { name: string; pattern: string; options?: PatternOptions; maxN?: number }[] = [
  { name: 'kmeans', pattern: 'kmeans', options: { aggregation: 'ring' }, maxN: 1024 },
  { name: 'kmeans-three-stage', pattern: 'kmeans', options: { aggregation: 'three-stage' }, maxN: 1024 },
  { name: 'bt', pattern: 'bt' },
  { name: 'sp', pattern: 'sp' },
  { name: 'lu', pattern: 'lu' },
  { name: 'dnn', pattern: 'dnn' },
  { name: 'dnn-allreduce', pattern: 'dnn', options: { exchange: 'allreduce' } },
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
      profile,
      pattern: p.pattern,
      processes: 64,
      ...(p.options ? { patternOptions: p.options } : {}),
      constraintRatio: 0.2,
      seed,
      monteCarlo: samples,
      keepSamples: true,
      geoRefined,
    })
    const cost = Object.fromEntries(r.plans.map((x) => [x.algorithm, x.cost]))
    const ms = Object.fromEntries(r.plans.map((x) => [x.algorithm, x.planMs]))
    const mc = r.monteCarlo!
    const costs = mc.costs! // keepSamples: every sample's cost
    if (seed === 1) {
      // Figure 9: random costs relative to geo, sorted (the CDF's x values at 1,000 quantiles).
      const sorted = Float64Array.from(costs, (c) => c / cost.geo!).sort()
      cdf[p.name] = Array.from(
        { length: 1001 },
        (_, q) => sorted[Math.min(sorted.length - 1, Math.floor((q / 1000) * (sorted.length - 1)))]!,
      )
      // Figure 10: best of the first K samples relative to geo.
      const points: { k: number; best: number }[] = []
      let best = Number.POSITIVE_INFINITY
      let next = 1
      costs.forEach((c, i) => {
        best = Math.min(best, c)
        if (i + 1 === next || i + 1 === costs.length) {
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
      fractionBetterThanRefined: fractionBelow(Float64Array.from(costs), cost['geo-refined']!),
    }
  })
  const gain = (planner: string, base: (r: (typeof rows)[number]) => number) =>
    mean(rows.map((r) => 1 - r.cost[planner]! / base(r)))
  const row = {
    pattern: p.name,
    gainOverRandom: gain('geo', (r) => r.randomMean),
    gainOverGreedy: gain('geo', (r) => r.cost.greedy!),
    gainOverMpipp: gain('geo', (r) => r.cost.mpipp!),
    fractionBetterThanGeo: mean(rows.map((r) => r.fractionBetterThanGeo)),
    geoMs: mean(rows.map((r) => r.ms.geo!)),
    refinedGainOverRandom: gain('geo-refined', (r) => r.randomMean),
    refinedGainOverGreedy: gain('geo-refined', (r) => r.cost.greedy!),
    refinedGainOverMpipp: gain('geo-refined', (r) => r.cost.mpipp!),
    fractionBetterThanRefined: mean(rows.map((r) => r.fractionBetterThanRefined)),
    refinedMs: mean(rows.map((r) => r.ms['geo-refined']!)),
    seeds: rows,
  }
  const line = (who: string, g: number, gg: number, gm: number, f: number) =>
    `${p.name} ${who}: gain over random ${(g * 100).toFixed(1)} %, greedy ${(gg * 100).toFixed(1)} %, mpipp ${(gm * 100).toFixed(2)} %, random better ${(f * 100).toFixed(4)} %`
  log(line('geo', row.gainOverRandom, row.gainOverGreedy, row.gainOverMpipp, row.fractionBetterThanGeo))
  log(
    line(
      'geo-refined',
      row.refinedGainOverRandom,
      row.refinedGainOverGreedy,
      row.refinedGainOverMpipp,
      row.fractionBetterThanRefined,
    ),
  )
  perPattern.push(row)
}

// The targets' mean: over the five patterns as planned by default (K-means with ring, DNN with a parameter server).
const targetPatterns = ['kmeans', 'bt', 'sp', 'lu', 'dnn']
const targetRows = perPattern.filter((r) => targetPatterns.includes(r.pattern))
log(
  `mean gain over random (${targetPatterns.join(', ')}): geo ${(mean(targetRows.map((r) => r.gainOverRandom)) * 100).toFixed(1)} %, geo-refined ${(mean(targetRows.map((r) => r.refinedGainOverRandom)) * 100).toFixed(1)} %`,
)

// Figure 7: gain vs scale (4 sites, N / 4 nodes each), seed 1; MPIPP up to `mpipp-max-n`.
const perScale = []
for (const p of patterns)
  for (const n of scales) {
    if (p.maxN && n > p.maxN) continue
    const r = planMapping({
      profile,
      pattern: p.pattern,
      processes: n,
      ...(p.options ? { patternOptions: p.options } : {}),
      constraintRatio: 0.2,
      seed: 1,
      planners: n <= mpippMaxN ? ['geo', 'geo-refined', 'greedy', 'mpipp'] : ['geo', 'geo-refined', 'greedy'],
      monteCarlo: 100,
      geoRefined,
    })
    const ms = Object.fromEntries(r.plans.map((x) => [x.algorithm, x.planMs]))
    const cost = Object.fromEntries(r.plans.map((x) => [x.algorithm, x.cost]))
    const row = {
      pattern: p.name,
      processes: n,
      geoMs: ms.geo!,
      refinedMs: ms['geo-refined']!,
      gainOverRandom: 1 - cost.geo! / r.monteCarlo!.mean,
      refinedGainOverRandom: 1 - cost['geo-refined']! / r.monteCarlo!.mean,
      gainOverGreedy: 1 - cost.geo! / cost.greedy!,
      gainOverMpipp: cost.mpipp === undefined ? null : 1 - cost.geo! / cost.mpipp,
    }
    log(
      `${p.name} N=${n}: geo ${row.geoMs.toFixed(0)} ms, gain over random ${(row.gainOverRandom * 100).toFixed(1)} %; geo-refined ${row.refinedMs.toFixed(0)} ms, ${(row.refinedGainOverRandom * 100).toFixed(1)} %`,
    )
    perScale.push(row)
  }

await writeFile(
  values.out,
  `${JSON.stringify({ date: new Date().toISOString(), profile, samples, seeds, refineMaxMs: geoRefined.maxMs, perPattern, perScale, cdf, bestOfK })}\n`,
)
