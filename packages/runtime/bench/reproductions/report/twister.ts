/**
 * The Twister papers (Zhang, Qiu; the extended version numbers some tables differently):
 * broadcast (Tables 5, 8, 9, MPI_Bcast, topology-aware chain), local aggregation (Fig. 9),
 * the 1M-centroid iteration (Fig. 10) and the triangle-inequality fraction (Fig. 11).
 */
import { type ResultFile, readResult } from '../results.ts'
import { fix, missing, pct, provenance, rel, sig, table, worst } from './format.ts'

/** Table 8 (1 GB columns) and Table 5, by the paper's Node# (receivers). */
const table8 = {
  receivers: [1, 25, 50, 75, 100, 125, 150],
  chain: [8.09, 8.22, 8.24, 8.28, 8.28, 8.29, 8.3],
  simple: [8.08, 202, 404.04, 606.09, 808.21, 1010.71, 1212.21],
  bucket: [11.4, 20.57, 20.62, 20.68, 20.79, 21.2, undefined],
}
/** Table 9: 1 GB by the chain to 125 nodes, per socket buffer (KB). */
const table9 = {
  kb: [8, 16, 32, 64, 128, 256, 512, 1024],
  seconds: [65.5, 45.46, 17.77, 10.8, 8.29, 8.27, 8.27, 8.27],
}
/** Fig. 10 (extended version) / the 169 s: per-iteration collectives at 1M centroids. */
const iteration1m = { broadcast: 64.961, shuffleReduce: 97.74, combine: 6.623 }
/** Fig. 9 (extended version): 500K centroids, with and without local aggregation. */
const localAggregation = {
  with: { broadcast: 38.03, shuffleReduce: 42.43, combine: 5.01 },
  without: { broadcast: 38.11, shuffleReduce: 471.34, combine: 3.86 },
}

// biome-ignore lint/suspicious/noExplicitAny: rows are the commands' JSON
const rowsOf = (r: ResultFile): any[] =>
  r.runs.flatMap((run) => run.rows.map((row) => ({ ...run.label, ...row })))

function broadcastTables(): string {
  const r = readResult('twister-broadcast-1gb')
  if (!r) return missing('twister-broadcast-1gb')
  const rows = rowsOf(r)
  const at = (algorithm: string, receivers: number) =>
    rows.find((x) => x.algorithm === algorithm && x.nodes === receivers + 1)?.seconds as number
  const chainPairs = table8.receivers.map((p, i) => [at('chain', p), table8.chain[i]] as [number, number])
  const simplePairs = table8.receivers.map((p, i) => [at('simple', p), table8.simple[i]] as [number, number])
  const bucketPairs = table8.receivers.flatMap((p, i) =>
    table8.bucket[i] === undefined ? [] : [[at('bucket', p), table8.bucket[i]] as [number, number]],
  )
  const floor = 2 * at('chain', 1)
  const random = table8.receivers.map((p) => at('chain-random', p) / at('chain', p))
  return `### Tables 8 and 5 — broadcasting 1 GB (simulator)

The papers' cluster as a topology: 1 GbE nodes in racks of 42 behind 10 GbE uplinks (IU PolarGrid's
sections), α = 0, 512 KiB chunks, root node 0; the chain in rack order. The paper's Node# counts
receivers, so its row p sits beside our p + 1 nodes.

${table(
  [
    '>receivers',
    '>chain: paper',
    '>ours',
    '>Δ',
    '>simple: paper',
    '>ours',
    '>Δ',
    '>bucket: paper (Table 5)',
    '>ours',
    '>Δ',
    '>random ÷ rack-ordered chain',
  ],
  table8.receivers.map((p, i) => [
    p,
    fix(table8.chain[i]),
    fix(chainPairs[i][0]),
    rel(chainPairs[i][0], table8.chain[i]),
    sig(table8.simple[i]),
    sig(simplePairs[i][0]),
    rel(simplePairs[i][0], table8.simple[i]),
    table8.bucket[i] === undefined ? '—' : fix(table8.bucket[i] as number),
    fix(at('bucket', p)),
    table8.bucket[i] === undefined ? '—' : rel(at('bucket', p), table8.bucket[i] as number),
    `${fix(random[i])} ×`,
  ]),
)}

| claim | paper | Codebook | verdict |
| --- | --- | --- | --- |
| the chain's time is flat in p (Table 8) | 8.09–8.30 s | ${fix(Math.min(...chainPairs.map((x) => x[0])))}–${fix(Math.max(...chainPairs.map((x) => x[0])))} s, worst ${pct(worst(chainPairs))} off | ${worst(chainPairs) <= 0.05 ? 'reproduced (within 5 %)' : 'differs'} |
| simple takes one transfer per receiver (Table 8) | 8.08–1,212 s | worst ${pct(worst(simplePairs))} off | ${worst(simplePairs) <= 0.05 ? 'reproduced (within 5 %)' : 'differs'} |
| bucket (scatter + all-gather) ≈ 2 × the chain (Table 5) | ${fix(table8.bucket[1] as number)}–${fix(table8.bucket[5] as number)} s | ${fix(Math.min(...bucketPairs.slice(1).map((x) => x[0])))}–${fix(Math.max(...bucketPairs.map((x) => x[0])))} s, ${pct(worst(bucketPairs.slice(1)))} below | differs: any bucket moves 2n bytes through each node, ${fix(floor)} s here; the paper's 20.57–21.2 s are ${pct((table8.bucket[1] as number) / floor - 1, 0)}–${pct((table8.bucket[5] as number) / floor - 1, 0)} above that floor, which the paper attributes to its own simple implementation (no barrier between scatter and all-gather, so some links carry more); the simulator plays the schedule without that contention |
| a random chain order is ≈ 5 × slower past 3 switches (Fig. 5 / Fig. 8) | 5 × | ${fix(Math.max(...random))} × at most | shape only: random orders slow down once they cross racks, but the simulator's uplinks are fairly shared 10 GbE links; the paper names the core switch's throughput as the limit, which is not modelled |

${provenance(r)}`
}

function socketBufferTable(): string {
  const r = readResult('twister-socket-buffers')
  if (!r) return missing('twister-socket-buffers')
  const rows = rowsOf(r)
  const ours = table9.kb.map((kb) => rows.find((x) => x.socketBuffer === kb * 1024)?.seconds as number)
  const pairs = ours.map((o, i) => [o, table9.seconds[i]] as [number, number])
  // With one round-trip time for every size, a window-bound model makes 8 KB take exactly 2 × 16 KB;
  // the best such fit misses both points by e with (1 + e)/(1 − e) = 2/r, r the paper's ratio.
  const r816 = table9.seconds[0] / table9.seconds[1]
  const bound = (2 - r816) / (2 + r816)
  const small = pairs.slice(0, 4)
  const large = pairs.slice(4)
  return `### Table 9 — socket buffers, 1 GB by the chain to 125 nodes (simulator)

A connection keeps at most one socket buffer in flight, so it moves at most buffer ÷ round trip;
the round trip is the path's latency both ways plus a base of 537 µs (the papers give no RTT: it is
the minimax fit of the 8 KB and 16 KB points). Closed form and test: \`docs/simulator.md\`.

${table(
  ['buffer (KB)', ...table9.kb.map((kb) => `>${kb}`)],
  [
    ['paper (s)', ...table9.seconds.map((s) => fix(s))],
    ['simulator (s)', ...ours.map((s) => fix(s))],
    ['Δ', ...pairs.map(([o, p]) => rel(o, p))],
  ],
)}

Target: within 15 % at every size. **${worst(large) <= 0.15 && worst(small) <= 0.15 ? 'Reproduced' : 'Not met below 128 KB'}**:
from 128 KB up the chain is link-bound and within ${pct(worst(large))}; below, within ${pct(worst(small))}.
No window-per-round-trip model can do better there: it makes the time ∝ RTT ÷ buffer, so 8 KB takes
exactly twice 16 KB, where the paper measured ${fix(r816)} ×; the best single-RTT fit misses both points
by ${pct(bound)}. Slow start, delayed acknowledgements and the kernel's share of the buffer bend the
measured curve and are not modelled.

${provenance(r)}`
}

function iterationTable(): string {
  const r = readResult('twister-iteration-1m')
  if (!r) return missing('twister-iteration-1m')
  const stages = (wire: string) => r.runs.find((x) => x.label.wire === wire)?.rows[0].stages
  const bytes = stages('bytes')
  const ours = stages('codebook')
  const combineFloor = bytes.combine.bytes / 125e6 // through the driver's 1 GbE NIC
  const broadcastWire = table8.chain[5] * (bytes.broadcast.bytes / 124 / 1e9) // Table 8's chain, scaled to the bytes
  const row = (
    name: string,
    paper: number,
    b: { seconds: number; bytes: number },
    c: { seconds: number },
  ) => [
    name,
    fix(paper),
    fix(b.seconds),
    rel(b.seconds, paper),
    `${fix(b.bytes / 1e9, 1)} GB`,
    fix(c.seconds),
  ]
  return `### The 169 s of collectives per iteration at 1M centroids (simulator)

7.42 M × 512 vectors into 10⁶ centroids on 125 nodes of 8 map slots (the paper's run); the papers
move centroids as bytes (512 MB a set) and their reducers send updated centroid blocks to the driver.
\`--encoding uint8 --combine centroids\` plays that (a real run takes the same two flags:
\`codebook kmeans --encoding uint8 --combine centroids\`); Codebook's default runs send float32
centroids and combine the exact sums (last column).

${table(
  ['stage', '>paper (s)', '>simulator, bytes (s)', '>Δ', '>moved', ">Codebook's wire (s)"],
  [
    row('broadcast', iteration1m.broadcast, bytes.broadcast, ours.broadcast),
    row('shuffle + reduce (three-stage)', iteration1m.shuffleReduce, bytes.regroup, ours.regroup),
    row('combine', iteration1m.combine, bytes.combine, ours.combine),
    [
      'total',
      fix(iteration1m.broadcast + iteration1m.shuffleReduce + iteration1m.combine),
      fix(bytes.broadcast.seconds + bytes.regroup.seconds + bytes.combine.seconds),
      '',
      '',
      fix(ours.broadcast.seconds + ours.regroup.seconds + ours.combine.seconds),
    ],
  ],
)}

Target: each stage within 25 % of the paper's. **Shuffle + reduce: ${Math.abs(bytes.regroup.seconds / iteration1m.shuffleReduce - 1) <= 0.25 ? 'met' : 'not met'}** (${rel(bytes.regroup.seconds, iteration1m.shuffleReduce)}).
**Broadcast and combine: not met, and no network model can meet them**: the paper's broadcast
counts the serialization and de-serialization of the byte centroids; its own Table 8 chain moves those
bytes in ${fix(broadcastWire)} s, so ${pct(1 - broadcastWire / iteration1m.broadcast, 0)} of its ${fix(iteration1m.broadcast)} s is Java (de)serialization, which the
simulator does not model. The combine brings ${fix(bytes.combine.bytes / 1e6, 0)} MB to the driver through one 1 GbE
NIC: at least ${fix(combineFloor)} s on any schedule, which the simulator reaches; the paper's
${fix(iteration1m.combine)} s is ${pct(iteration1m.combine / combineFloor - 1, 0)} above that floor (again its (de)serialization).

${provenance(r)}`
}

function localAggregationTable(): string {
  const r = readResult('twister-local-aggregation')
  if (!r) return missing('twister-local-aggregation')
  const s = (aggregation: string) => r.runs.find((x) => x.label.aggregation === aggregation)?.rows[0].stages
  const withLocal = s('three-stage')
  const without = s('direct')
  return `### Fig. 9 — shuffling with and without local aggregation, 500K centroids (simulator)

125 nodes × 8 map tasks, 125 reduce tasks, 500K centroids of 512 bytes. Without local aggregation
each map task sends its own partial sums (\`--aggregation direct\`); with it, a node's 8 tasks merge
first (\`three-stage\`).

${table(
  ['', '>paper (s)', '>simulator (s)', '>Δ', '>simulator moves'],
  [
    [
      'shuffle + reduce, with local aggregation',
      fix(localAggregation.with.shuffleReduce),
      fix(withLocal.regroup.seconds),
      rel(withLocal.regroup.seconds, localAggregation.with.shuffleReduce),
      `${fix(withLocal.regroup.bytes / 1e9, 0)} GB`,
    ],
    [
      'shuffle + reduce, without',
      fix(localAggregation.without.shuffleReduce),
      fix(without.regroup.seconds),
      rel(without.regroup.seconds, localAggregation.without.shuffleReduce),
      `${fix(without.regroup.bytes / 1e9, 0)} GB`,
    ],
    [
      'without ÷ with',
      `${fix(localAggregation.without.shuffleReduce / localAggregation.with.shuffleReduce, 1)} ×`,
      `${fix(without.regroup.seconds / withLocal.regroup.seconds, 1)} ×`,
      '',
      '',
    ],
  ],
)}

Verdict: **${Math.abs(withLocal.regroup.seconds / localAggregation.with.shuffleReduce - 1) <= 0.25 && Math.abs(without.regroup.seconds / localAggregation.without.shuffleReduce - 1) <= 0.25 ? 'reproduced within 25 %' : 'differs'}**.
The bytes are not the paper's: it reports 1 GB per node with local aggregation (125 GB in all) and 8 GB
per node without (1 TB); the simulator's partial sums are k/p × (d + 1) float64 per block, twice that.
The times agree because the paper's cluster moved those bytes at about half the links' rate; the
ratio (8 × the bytes, less than 8 × the time in both) is what local aggregation buys.

${provenance(r)}`
}

function distanceFractionTable(): string {
  const r = readResult('twister-distance-fraction')
  if (!r) return missing('twister-distance-fraction')
  const series = r.runs.map((run) => ({
    name: Number(run.label.blobs) > 0 ? `${run.label.blobs} blobs` : 'standard normal',
    its: run.rows[0].perIteration as { distanceFraction: number }[],
  }))
  const most = Math.max(...series.map((x) => x.its.length))
  const cell = (x: number | undefined) => (x === undefined ? '—' : pct(x, x < 0.01 ? 2 : 1))
  const claims = series.map(({ name, its }) => {
    const at10 = its[9]?.distanceFraction
    const last = its[its.length - 1]!.distanceFraction
    return `| ${name} | ${pct(its[0]!.distanceFraction, 0)} | ${at10 === undefined ? `converged after ${its.length}` : cell(at10)} | ${cell(last)} at iteration ${its.length} | ${
      at10 === undefined
        ? last < 0.001
          ? 'reproduced, faster'
          : 'shape only'
        : at10 < 0.1 && last < 0.001
          ? 'reproduced'
          : at10 < 0.1
            ? 'shape only'
            : 'shape only: slower'
    } |`
  })
  return `### Fig. 11 — distances computed with the triangle inequality (real run)

The papers' early result for an Elkan-style K-means: essentially every distance in the first
iterations, under 10 % at iteration 10, under 0.1 % in the last ones (76,800 points, 3,200 centers).
Codebook's Yinyang assignment (Ding et al.: group bounds, a generalisation of Elkan's) at the same
sizes, 512-d, 2 workers, on two data sets between which real HOG vectors lie (the papers' are not
public): Gaussian data in 320 blobs (ten centroids to split each) and structureless standard normal data.
Share of the n·k distances computed per iteration:

${table(
  ['data', ...Array.from({ length: most }, (_, i) => `>${i + 1}`)],
  series.map(({ name, its }) => [
    name,
    ...Array.from({ length: most }, (_, i) => cell(its[i]?.distanceFraction)),
  ]),
)}

| data | iteration 1 (paper ≈ 100 %) | iteration 10 (paper < 10 %) | last (paper < 0.1 %) | verdict |
| --- | ---: | ---: | ---: | --- |
${claims.join('\n')}

The bounds prune as the papers say once centroids settle; how soon depends on the data's structure:
clustered data converge within a few iterations, structureless data keep moving (the 20-iteration cap).

${provenance(r)}`
}

function labTables(): string {
  const r = readResult('lab-broadcast')
  if (!r) return missing('lab-broadcast')
  const rows = rowsOf(r)
  const at = (algorithm: string, hosts: number) =>
    rows.find((x) => x.algorithm === algorithm && x.hosts === hosts)
  const hosts = [...new Set(rows.map((x) => x.hosts as number))]
  const algorithms = ['simple', 'mst', 'bucket', 'chain', 'chain-random']
  const chain = hosts.map((h) => at('chain', h).seconds as number)
  const errs = algorithms.flatMap((a) =>
    hosts
      .map((h) => at(a, h))
      .filter(Boolean)
      .map((x) => [x.seconds, x.simulatedSeconds] as [number, number]),
  )
  const big = readResult('lab-mpi-256mb')
  const bigRows = big ? rowsOf(big) : []
  const bigAt = (algorithm: string, h: number) =>
    bigRows.find((x) => x.algorithm === algorithm && x.hosts === h)?.seconds as number | undefined
  const mpi = hosts.map((h) => at('mpi', h)?.seconds as number)
  return `### Broadcasts on real TCP, and MPI_Bcast beside the chain (network lab)

The runtime's broadcasts between real worker processes, each in its own network namespace, over
links \`tc\` shapes (\`docs/lab.md\`): 3 racks × 4 hosts, 100 Mbit/s hosts, 200 Mbit/s rack uplinks
(the papers' 1 GbE nodes and 10 GbE uplinks scaled so two cores can drive them), 16 MiB in 64 KiB
chunks, root host 0, the median of 3 runs after a warm-up; beside each, the simulator's prediction
for the same lab. \`--peer mpi\` then times Open MPI's \`MPI_Bcast\` (Debian's \`openmpi-bin\`, its
default decision rules, \`btl tcp\`) on the same hosts and bytes.

${table(
  ['algorithm', ...hosts.map((h) => `>${h} hosts: lab / simulated (s)`)],
  [
    ...algorithms.map((a) => [
      a,
      ...hosts.map((h) => {
        const x = at(a, h)
        return x
          ? `${fix(x.seconds)} / ${fix(x.simulatedSeconds)} (${rel(x.seconds, x.simulatedSeconds)})`
          : '—'
      }),
    ]),
    ['MPI_Bcast', ...mpi.map((m, i) => (m ? `${fix(m)} (${fix(m / chain[i], 1)} × the chain)` : '—'))],
  ],
)}

${
  big
    ? `At 256 MB (one run each, chain then MPI_Bcast):

${table(
  ['>hosts', '>chain (s)', '>MPI_Bcast (s)', '>MPI ÷ chain'],
  [4, 8, 12].map((h) => {
    const c = bigAt('chain', h)
    const m = bigAt('mpi', h)
    return [h, c ? fix(c) : '—', m ? fix(m) : '—', c && m ? `${fix(m / c, 1)} ×` : '—']
  }),
)}

${provenance(big)}
`
    : ''
}
| claim | paper | lab | verdict |
| --- | --- | --- | --- |
| the chain is flat in the number of hosts | 8.09–8.30 s for 1 GB | ${fix(Math.min(...chain))}–${fix(Math.max(...chain))} s (${rel(chain[chain.length - 1], chain[0])} from ${hosts[0]} to ${hosts[hosts.length - 1]} hosts) | ${chain[chain.length - 1] / chain[0] - 1 <= 0.1 ? 'reproduced' : 'shape only'} |
| the chain beats MPI_Bcast by about 20 % | MPI ≈ 1.2 × the chain (Open MPI 1.4.1) | ${mpi.every(Boolean) ? `${fix(Math.min(...mpi.map((m, i) => m / chain[i])), 1)}–${fix(Math.max(...mpi.map((m, i) => m / chain[i])), 1)} ×` : 'not measured'} | differs in size: Open MPI 4.1's default rules send this message whole to each host in turn here (its time grows as hosts − 1, like \`simple\`); forced to its pipelined algorithm it comes close to the chain (\`docs/lab.md\`) |
| the model predicts the lab | — | within ${pct(worst(errs))} at worst | ${worst(errs) <= 0.15 ? 'within the 15 % target' : 'outside the 15 % target at this load (the lab shares two cores: docs/lab.md)'} |

${provenance(r)}`
}

function labBufferTable(): string {
  const r = readResult('lab-socket-buffers')
  if (!r) return missing('lab-socket-buffers')
  const rows = rowsOf(r)
  const base = rows.find((x) => x.tcpBufferKb === 1024)?.seconds as number
  return `### Table 9's shape on real TCP (network lab)

4 hosts in one rack, 5 ms per hop, a 2 MiB chain, socket buffers set with \`--tcp-buffer-kb\`:

${table(
  ['>buffer (KiB)', '>lab (s)', '>simulated (s)', '>Δ', '>slower than 1 MiB'],
  rows.map((x) => [
    x.tcpBufferKb,
    fix(x.seconds, 3),
    fix(x.simulatedSeconds, 3),
    rel(x.seconds, x.simulatedSeconds),
    `${fix(x.seconds / base, 1)} ×`,
  ]),
)}

The paper saw up to 8 × between 8 KB and ≥ 128 KB on 1 GbE; a window-bound flow moves one buffer per
round trip, so the slowdown is rate × RTT ÷ buffer and grows with the delay (5 ms here). Verdict:
shape reproduced.

${provenance(r)}`
}

/** The Twister section of the report. */
export function twisterSection(): string {
  return `## Twister: collectives for 1M-centroid K-means (Zhang, Qiu)

\`twister-collectives.txt\` and its extended version: broadcast algorithms on IU PolarGrid (125–150
nodes, 1 GbE, 10 GbE between racks), local aggregation, and the per-iteration collective cost of
clustering 7.42 M HOG vectors into 10⁶ centroids. Tables numbered as in the shorter version.

${broadcastTables()}

${socketBufferTable()}

${labTables()}

${labBufferTable()}

${localAggregationTable()}

${iterationTable()}

${distanceFractionTable()}`
}
