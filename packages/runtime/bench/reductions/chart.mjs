// Renders `codebook bench reduction --json` lines (several --jitter-cv values) as an SVG bar
// chart: per CV, one bar per algorithm (mean measured tree time) and a black tick at the study's
// makespan for the same draws. Usage (from packages/runtime):
//   node bench/reductions/chart.mjs < bench/reductions/bench-reduction-2026-11-25.jsonl > ../../docs/img/reductions-bench.svg
import { readFileSync } from 'node:fs'

const rows = readFileSync(0, 'utf8')
  .split('\n')
  .filter((l) => l.startsWith('{'))
  .map((l) => JSON.parse(l))
const cvs = [...new Set(rows.map((r) => r.jitterCv))].sort((a, b) => a - b)
const algorithms = [...new Set(rows.map((r) => r.algorithm))]
const colours = ['#4c78a8', '#f58518', '#54a24b', '#b279a2']
const W = 720
const H = 360
const left = 56
const bottom = 300
const top = 48
const max = Math.max(...rows.flatMap((r) => [r.measuredMs, r.predictedMs])) * 1.1
const y = (ms) => bottom - ((bottom - top) * ms) / max
const groupWidth = (W - left - 20) / cvs.length
const barWidth = (groupWidth - 24) / algorithms.length
const first = rows[0]
const parts = [
  `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`,
  '<title>Reductions on real workers: measured time against the study</title>',
  `<rect width="${W}" height="${H}" fill="white"/>`,
  `<text x="${left}" y="16" font-size="14">Reductions on ${first.workers} real workers, ${first.bytes / 1024} KiB values, gamma delays (mean link ${first.linkMs} ms, ⊕ ${first.computeMs} ms)</text>`,
  `<text x="${left}" y="32">bars: measured tree time; black ticks: the study's makespan for the same draws</text>`,
]
for (let t = 0; t <= 4; t++) {
  const ms = (max * t) / 4
  parts.push(
    `<line x1="${left}" x2="${W - 20}" y1="${y(ms)}" y2="${y(ms)}" stroke="#ddd"/>`,
    `<text x="${left - 6}" y="${y(ms) + 4}" text-anchor="end">${ms.toFixed(0)}</text>`,
  )
}
parts.push(
  `<text x="14" y="${(top + bottom) / 2}" transform="rotate(-90 14 ${(top + bottom) / 2})" text-anchor="middle">ms (mean of ${first.runs} instances)</text>`,
)
cvs.forEach((cv, g) => {
  const x0 = left + 12 + g * groupWidth
  algorithms.forEach((algorithm, a) => {
    const r = rows.find((row) => row.jitterCv === cv && row.algorithm === algorithm)
    if (!r) return
    const x = x0 + a * barWidth
    parts.push(
      `<rect x="${x}" y="${y(r.measuredMs)}" width="${barWidth - 2}" height="${bottom - y(r.measuredMs)}" fill="${colours[a % colours.length]}"><title>${algorithm} CV ${cv}: measured ${r.measuredMs.toFixed(1)} ms, study ${r.predictedMs.toFixed(1)} ms</title></rect>`,
      `<line x1="${x - 1}" x2="${x + barWidth - 1}" y1="${y(r.predictedMs)}" y2="${y(r.predictedMs)}" stroke="black" stroke-width="2"/>`,
    )
  })
  parts.push(
    `<text x="${x0 + (groupWidth - 24) / 2}" y="${bottom + 18}" text-anchor="middle">CV ${cv}</text>`,
  )
})
algorithms.forEach((algorithm, a) => {
  const x = left + a * 160
  parts.push(
    `<rect x="${x}" y="${H - 28}" width="12" height="12" fill="${colours[a % colours.length]}"/>`,
    `<text x="${x + 16}" y="${H - 18}">${algorithm}</text>`,
  )
})
parts.push('</svg>')
process.stdout.write(`${parts.join('\n')}\n`)
