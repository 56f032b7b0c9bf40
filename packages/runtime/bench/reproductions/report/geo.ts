/**
 * Zhou & He, geo-distributed process mapping: Figs. 6 (gain per pattern), 7 (scale), 8 (constraint
 * ratio), 9–10 (random mappings), on the paper's own site profiles (ec2-4 from its Tables 1–2,
 * azure-3 from Table 3). All figures are the α-β model's cost, as the paper's simulations are.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { readResult, repoRoot } from '../results.ts'
import { fix, missing, pct, provenance, table } from './format.ts'

const patterns = ['bt', 'sp', 'lu', 'kmeans', 'dnn'] as const
const patternName: Record<string, string> = {
  bt: 'BT',
  sp: 'SP',
  lu: 'LU',
  kmeans: 'K-means (ring)',
  dnn: 'DNN (parameter server)',
}
const planners = ['geo', 'geo-refined', 'greedy', 'mpipp'] as const
const mean = (a: number[]) => a.reduce((x, y) => x + y, 0) / a.length

interface PlanRow {
  profile: string
  pattern: string
  ratio: number
  seed: number
  algorithm: string
  cost: number
  planMs: number
}
const planRows = (id: string): PlanRow[] | undefined =>
  readResult(id)?.runs.flatMap((run) => run.rows.map((row) => ({ ...run.label, ...row }) as PlanRow))

/** Mean over seeds of 1 − cost(planner) ÷ cost(base) for one profile, pattern and ratio. */
function gain(rows: PlanRow[], where: Partial<PlanRow>, planner: string, base = 'random'): number {
  const match = rows.filter((r) => Object.entries(where).every(([k, v]) => r[k as keyof PlanRow] === v))
  const seeds = [...new Set(match.map((r) => r.seed))]
  return mean(
    seeds.map((s) => {
      const cost = (a: string) => match.find((r) => r.seed === s && r.algorithm === a)?.cost as number
      return 1 - cost(planner) / cost(base)
    }),
  )
}

function fig6(): string {
  const rows = planRows('geo-fig6')
  const result = readResult('geo-fig6')
  if (!rows || !result) return missing('geo-fig6')
  const g = (profile: string, pattern: string, planner: string) =>
    gain(rows, { profile, pattern, ratio: 0.2 }, planner)
  const ec2 = (pattern: string, planner: string) => g('ec2-4', pattern, planner)
  const range = (ps: readonly string[], planner: string) => {
    const v = ps.map((p) => ec2(p, planner))
    return `${pct(Math.min(...v))}–${pct(Math.max(...v))}`
  }
  const all = (ps: readonly string[], planner: string, ok: (x: number) => boolean) =>
    ps.filter((p) => ok(ec2(p, planner)))
  const holds = (passing: string[], of: readonly string[]) =>
    passing.length === of.length
      ? 'yes'
      : passing.length === 0
        ? 'no'
        : `${passing.map((p) => patternName[p]).join(', ')} only`
  const geoBeatsMpipp = patterns.filter((p) => ec2(p, 'geo') >= ec2(p, 'mpipp'))
  const refinedBeatsMpipp = patterns.filter((p) => ec2(p, 'geo-refined') >= ec2(p, 'mpipp') - 1e-12)
  return `### Fig. 6 — gain over random per pattern, 64 processes (model)

64 processes spread evenly over the profile's sites (\`ec2-4\`: 4 × 16; \`azure-3\`: 3 sites), constraint ratio 0.2 (a fifth of the processes pinned to
their data's site), seeds 1–5; gain = 1 − cost ÷ the cost of that seed's random mapping (the
paper's Baseline), averaged over the seeds. **geo** is Algorithm 1 as the paper lists it; **geo-refined**
is Codebook's planner (Algorithm 1's fills, then pairwise exchanges); Greedy and MPIPP are the
paper's baselines (\`docs/mapping.md\`).

${table(
  ['pattern', ...['ec2-4', 'azure-3'].flatMap((profile) => planners.map((p) => `>${profile}: ${p}`))],
  patterns.map((pattern) => [
    patternName[pattern] as string,
    ...['ec2-4', 'azure-3'].flatMap((profile) => planners.map((p) => pct(g(profile, pattern, p)))),
  ]),
)}

The paper's ordering (its Fig. 6), on \`ec2-4\`:

| claim | here | holds? | why not |
| --- | --- | --- | --- |
| geo > 60 % over random on every pattern | ${range(patterns, 'geo')} | ${holds(
    all(patterns, 'geo', (x) => x > 0.6),
    patterns,
  )} | the patterns are shapes, not the paper's traces; the DNN's parameter-server traffic leaves placement little to choose (every worker talks to every server); Algorithm 1 never revisits a placement |
| MPIPP 20–30 % | ${range(patterns, 'mpipp')} | ${holds(
    all(patterns, 'mpipp', (x) => x >= 0.2 && x <= 0.3),
    patterns,
  )} | Codebook's MPIPP is Kernighan–Lin on the exact α-β cost from 4 random starts (0.5 % of the optimum on 8-rank instances, \`docs/mapping.md\`); the paper does not give its starts or stopping rule |
| geo ≥ MPIPP | geo ≥ MPIPP on ${geoBeatsMpipp.length} of 5; geo-refined on ${refinedBeatsMpipp.length} of 5 | ${geoBeatsMpipp.length === 5 ? 'yes' : `no (geo-refined: ${refinedBeatsMpipp.length === 5 ? 'yes' : 'no'})`} | a constructive fill against a local search |
| Greedy > 40 % on BT, SP, LU | ${range(['bt', 'sp', 'lu'], 'greedy')} | ${holds(
    all(['bt', 'sp', 'lu'], 'greedy', (x) => x > 0.4),
    ['bt', 'sp', 'lu'],
  )} | the pins: with 20 % pinned, Greedy's rank-by-rank growth is cut at the pinned ranks (at ratio 0, Fig. 8 below, it gains more) |
| Greedy < 10 % on K-means, DNN | ${range(['kmeans', 'dnn'], 'greedy')} | ${holds(
    all(['kmeans', 'dnn'], 'greedy', (x) => x < 0.1),
    ['kmeans', 'dnn'],
  )} | Codebook plans K-means across sites with the ring aggregation, a neighbourhood pattern Greedy can follow; the paper's K-means traffic is an all-to-all-like matrix (its Fig. 3) |

${provenance(result, { maxCommands: 1 })}`
}

function fig8(): string {
  const rows = planRows('geo-fig8')
  const result = readResult('geo-fig8')
  if (!rows || !result) return missing('geo-fig8')
  const ratios = [...new Set(rows.map((r) => r.ratio))].sort((a, b) => a - b)
  const series = (pattern: string, base: string) =>
    ratios.map((ratio) => gain(rows, { profile: 'ec2-4', pattern, ratio }, 'geo', base))
  const falling = (v: number[]) => v.every((x, i) => i === 0 || x <= v[i - 1] + 1e-9)
  const overRandomFalls = patterns.filter((p) => falling(series(p, 'random')))
  return `### Fig. 8 — gain against the constraint ratio (model)

The Fig. 6 setting on \`ec2-4\`, the constraint ratio from 0 to 0.5, seeds 1–5. The paper plots geo
over Greedy and reports LU's and K-means's curves concave, the DNN's falling almost linearly.

${table(
  ['pattern', ...ratios.map((r) => `>ratio ${r}: over random / over Greedy`)],
  patterns.map((p) => {
    const r = series(p, 'random')
    const g = series(p, 'greedy')
    return [
      patternName[p] as string,
      ...ratios.map((_, i) => `${pct(r[i] as number)} / ${pct(g[i] as number)}`),
    ]
  }),
)}

Verdict: **shape only**. The gain over random falls as more processes are pinned on ${overRandomFalls.length === 5 ? 'every pattern' : overRandomFalls.map((p) => patternName[p]).join(', ')}, as the
paper's does. The gain over Greedy does not follow the paper's concave (LU, K-means) or linear (DNN)
decline: at ratio 0 Greedy and geo both find the site-by-site grouping of these regular patterns, and
the pins are what separate them, so the gap opens with the ratio before it closes.

${provenance(result, { maxCommands: 1 })}`
}

interface ScaleData {
  date: string
  profile: string
  seeds: number[]
  samples: number
  refineMaxMs: number
  perPattern: {
    pattern: string
    gainOverRandom: number
    refinedGainOverRandom: number
    fractionBetterThanGeo: number
    fractionBetterThanRefined: number
  }[]
  perScale: {
    pattern: string
    processes: number
    geoMs: number
    refinedMs: number
    gainOverRandom: number
    refinedGainOverRandom: number
    gainOverGreedy: number
  }[]
  bestOfK: Record<string, { k: number; best: number }[]>
}

function scale(profile: string): string {
  const path = join(repoRoot, `docs/data/mapping-${profile}.json`)
  if (!existsSync(path))
    return `_No result file yet for ${profile}: \`npx tsx bench/mapping/reproduce.ts --profile ${profile} --out ../../docs/data/mapping-${profile}.json\`._`
  const data = JSON.parse(readFileSync(path, 'utf8')) as ScaleData
  const scales = [...new Set(data.perScale.map((r) => r.processes))].sort((a, b) => a - b)
  const shown = ['lu', 'kmeans', 'dnn', 'dnn-allreduce']
  const at = (pattern: string, n: number) =>
    data.perScale.find((r) => r.pattern === pattern && r.processes === n)
  const largest = scales[scales.length - 1] as number
  const atLargest = ['bt', 'sp', 'lu', 'dnn'].map((p) => [p, at(p, largest)] as const)
  const slowest = Math.max(
    ...data.perScale.filter((r) => r.processes === largest).map((r) => Math.max(r.geoMs, r.refinedMs)),
  )
  const fraction = (p: string) => data.perPattern.find((r) => r.pattern === p)
  const best = (p: string) => data.bestOfK[p]?.at(-1)
  return `### Figs. 7, 9 and 10 on \`${profile}\` — scale, and random mappings (model)

Fig. 7: seed 1, N processes spread evenly over the profile's sites, gain over the mean of 100 random mappings (geo / geo-refined;
the K-means patterns stop at 1,024 processes, their schedules hold O(p²) sends).

${table(
  ['pattern', ...scales.map((n) => `>${n}`)],
  shown.map((p) => [
    p,
    ...scales.map((n) => {
      const r = at(p, n)
      return r ? `${pct(r.gainOverRandom)} / ${pct(r.refinedGainOverRandom)}` : '—'
    }),
  ]),
)}

Figs. 9 and 10: ${data.samples.toLocaleString('en-US')} random mappings per seed (seeds ${data.seeds.join(', ')}); the share that beat the
planner, and the best of them relative to geo (seed 1):

${table(
  ['pattern', '>random mappings cheaper than geo', '>… than geo-refined', '>best random ÷ geo'],
  ['lu', 'kmeans', 'dnn', 'bt', 'sp'].map((p) => [
    p,
    pct(fraction(p)?.fractionBetterThanGeo ?? Number.NaN, 3),
    pct(fraction(p)?.fractionBetterThanRefined ?? Number.NaN, 3),
    best(p) ? `${fix(best(p)?.best as number)} ×` : '—',
  ]),
)}

| claim | paper | here | verdict |
| --- | --- | --- | --- |
| > 50 % over random at ${largest.toLocaleString('en-US')} processes, every application | > 50 % | geo ${atLargest.map(([p, r]) => `${p} ${pct(r?.gainOverRandom ?? Number.NaN)}`).join(', ')} | ${atLargest.every(([, r]) => (r?.gainOverRandom ?? 0) > 0.5) ? 'reproduced' : 'differs for the parameter-server DNN (placement only chooses where its √N servers sit); reproduced for the others'} |
| gain falls as N grows | falls | LU geo ${pct(at('lu', scales[0] as number)?.gainOverRandom ?? Number.NaN)} at ${scales[0]} → ${pct(at('lu', largest)?.gainOverRandom ?? Number.NaN)} at ${largest.toLocaleString('en-US')} | ${(at('lu', largest)?.gainOverRandom ?? 0) < (at('lu', scales[0] as number)?.gainOverRandom ?? 0) ? 'reproduced' : 'differs: the regular patterns get easier to group as sites grow'} |
| < 1 % of random mappings beat geo on LU, < 0.1 % on K-means and DNN | < 1 % / < 0.1 % | LU ${pct(fraction('lu')?.fractionBetterThanGeo ?? Number.NaN, 3)}, K-means ${pct(fraction('kmeans')?.fractionBetterThanGeo ?? Number.NaN, 3)}, DNN ${pct(fraction('dnn')?.fractionBetterThanGeo ?? Number.NaN, 3)} | ${(fraction('lu')?.fractionBetterThanGeo ?? 1) < 0.01 && (fraction('kmeans')?.fractionBetterThanGeo ?? 1) < 0.001 && (fraction('dnn')?.fractionBetterThanGeo ?? 1) < 0.001 ? 'reproduced' : 'differs where the cost landscape is flat (the parameter-server DNN)'} |
| geo plans in under a minute (Fig. 4: 4 sites, 64 processes) | < 1 min | every planner at ${largest.toLocaleString('en-US')} processes in ≤ ${fix(slowest / 1000, 1)} s (timed: see below) | reproduced |

Written by \`npx tsx bench/mapping/reproduce.ts --profile ${profile} --out ../../docs/data/mapping-${profile}.json --seeds ${data.seeds.length} --samples ${data.samples} --refine-max-ms ${data.refineMaxMs}\`
(cwd \`packages/runtime\`) on ${data.date.slice(0, 16).replace('T', ' ')} UTC, under the bench lock; costs are deterministic,
planning times depend on the machine's load (geo-refined's exchanges stop at ${data.refineMaxMs / 1000} s).${profile === 'ec2-4' ? ' Charts: `npx tsx bench/mapping/charts.ts --data ../../docs/data/mapping-ec2-4.json --out ../../docs/img`.' : ''}`
}

/** The geo-mapping section of the report. */
export function geoSection(): string {
  return `## Geo-distributed process mapping (Zhou, He)

\`geo-process-mapping.txt\`: map N processes onto sites (EC2 regions) so that an α-β model of the
communication is cheapest, with some processes pinned to their data's site. Profiles: \`ec2-4\` from
the paper's Tables 1–2 (4 EC2 regions), \`azure-3\` from Table 3 (\`docs/mapping.md\`, "Built-in site
profiles"). Fig. 5 (measured runs on EC2) needs EC2; the nearest Codebook has is a geo-placed K-means
in the network lab (\`docs/lab.md\`).

${fig6()}

![Gain of geo and geo-refined per pattern over random, Greedy and MPIPP](img/mapping-fig6-gain-per-pattern.svg)

${fig8()}

${scale('ec2-4')}

![Gain of geo and geo-refined over random vs processes](img/mapping-fig7-gain-vs-scale.svg)

![CDF of random mapping cost relative to geo](img/mapping-fig9-random-cdf.svg)

![Best of K random mappings relative to geo](img/mapping-fig10-best-of-k.svg)

${scale('azure-3')}`
}
