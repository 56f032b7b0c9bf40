/**
 * Draws `codebook lab bench broadcast --json` results as an SVG: one panel per input file,
 * seconds against hosts per algorithm, the lab's measurement solid and the simulator's
 * prediction dashed. Usage: npx tsx bench/lab/chart.ts OUT.svg RESULTS.jsonl [RESULTS.jsonl …]
 * (the file name, without .jsonl, titles its panel).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { basename } from 'node:path'

interface Row {
  algorithm: string
  hosts: number
  seconds: number
  simulatedSeconds: number
}

const [out, ...inputs] = process.argv.slice(2)
if (!out || inputs.length === 0) {
  process.stderr.write('usage: chart.ts OUT.svg RESULTS.jsonl [...]\n')
  process.exit(2)
}
const colours: Record<string, string> = {
  simple: '#d62728',
  mst: '#9467bd',
  bucket: '#ff7f0e',
  chain: '#2ca02c',
  'chain-random': '#1f77b4',
}
const W = 420
const H = 300
const pad = { l: 50, r: 110, t: 30, b: 40 }
const panels = inputs.map((file, i) => {
  const rows = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Row)
  const hosts = [...new Set(rows.map((r) => r.hosts))].sort((a, b) => a - b)
  const top = Math.max(...rows.flatMap((r) => [r.seconds, r.simulatedSeconds])) * 1.05
  const x = (h: number) =>
    pad.l + ((h - hosts[0]!) / Math.max(1, hosts.at(-1)! - hosts[0]!)) * (W - pad.l - pad.r)
  const y = (s: number) => H - pad.b - (s / top) * (H - pad.t - pad.b)
  const parts: string[] = [`<g transform="translate(${i * W},0)">`]
  parts.push(`<text x="${pad.l}" y="18" font-size="13">${basename(file, '.jsonl')}</text>`)
  parts.push(`<line x1="${pad.l}" y1="${H - pad.b}" x2="${W - pad.r}" y2="${H - pad.b}" stroke="#000"/>`)
  parts.push(`<line x1="${pad.l}" y1="${pad.t}" x2="${pad.l}" y2="${H - pad.b}" stroke="#000"/>`)
  for (const h of hosts)
    parts.push(`<text x="${x(h)}" y="${H - pad.b + 15}" font-size="11" text-anchor="middle">${h}</text>`)
  parts.push(
    `<text x="${(pad.l + W - pad.r) / 2}" y="${H - 5}" font-size="11" text-anchor="middle">hosts</text>`,
  )
  for (let k = 0; k <= 4; k++) {
    const s = (top / 4) * k
    parts.push(
      `<text x="${pad.l - 5}" y="${y(s) + 4}" font-size="10" text-anchor="end">${s.toFixed(1)}</text>`,
    )
  }
  parts.push(`<text x="12" y="${pad.t - 8}" font-size="11">s</text>`)
  const algorithms = [...new Set(rows.map((r) => r.algorithm))]
  algorithms.forEach((a, j) => {
    const mine = rows.filter((r) => r.algorithm === a).sort((p, q) => p.hosts - q.hosts)
    const colour = colours[a] ?? '#444'
    const line = (f: (r: Row) => number) => mine.map((r) => `${x(r.hosts)},${y(f(r))}`).join(' ')
    parts.push(
      `<polyline points="${line((r) => r.seconds)}" fill="none" stroke="${colour}" stroke-width="2"/>`,
    )
    parts.push(
      `<polyline points="${line((r) => r.simulatedSeconds)}" fill="none" stroke="${colour}" stroke-width="1.5" stroke-dasharray="5,4"/>`,
    )
    parts.push(
      `<text x="${W - pad.r + 8}" y="${pad.t + 14 * j + 10}" font-size="11" fill="${colour}">${a}</text>`,
    )
  })
  parts.push(
    `<text x="${W - pad.r + 8}" y="${pad.t + 14 * algorithms.length + 24}" font-size="10">solid: lab</text>`,
  )
  parts.push(
    `<text x="${W - pad.r + 8}" y="${pad.t + 14 * algorithms.length + 38}" font-size="10">dashed: simulated</text>`,
  )
  parts.push('</g>')
  return parts.join('\n')
})
writeFileSync(
  out,
  `<svg xmlns="http://www.w3.org/2000/svg" width="${W * inputs.length}" height="${H}" font-family="sans-serif" role="img">\n<title>Broadcast seconds by hosts: network lab (solid) against the simulator (dashed)</title>\n<rect width="100%" height="100%" fill="#fff"/>\n${panels.join('\n')}\n</svg>\n`,
)
