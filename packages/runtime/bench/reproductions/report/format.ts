/** Markdown helpers for the report: tables, numbers, relative errors, verdicts. */
import type { ResultFile, ResultRun } from '../results.ts'

/** A Markdown table; columns whose header starts with '>' are right-aligned. */
export function table(header: string[], rows: (string | number)[][]): string {
  const head = header.map((h) => h.replace(/^>/, ''))
  const align = header.map((h) => (h.startsWith('>') ? '---:' : '---'))
  return [head, align, ...rows.map((r) => r.map(String))].map((r) => `| ${r.join(' | ')} |`).join('\n')
}

/** `x` with `digits` decimals and thousands separators. */
export const fix = (x: number, digits = 2) =>
  x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })

/** Three significant figures, as the papers print most times. */
export const sig = (x: number) => (Math.abs(x) >= 100 ? fix(x, 0) : Math.abs(x) >= 10 ? fix(x, 1) : fix(x, 2))

/** Relative difference of ours against the paper's, signed: "+3.1 %". */
export const rel = (ours: number, paper: number) => {
  const e = (ours / paper - 1) * 100
  return `${e >= 0 ? '+' : '−'}${fix(Math.abs(e), 1)} %`
}

/** A fraction as a percentage. */
export const pct = (x: number, digits = 1) => `${x < 0 ? '−' : ''}${fix(Math.abs(x) * 100, digits)} %`

/** The placeholder of a table whose experiment has not been run yet. */
export const missing = (id: string) => `_No result file yet: \`npx tsx bench/reproductions/run.ts ${id}\`._`

/** The largest |ours/paper − 1| over the pairs. */
export const worst = (pairs: [number, number][]) => Math.max(...pairs.map(([o, p]) => Math.abs(o / p - 1)))

/** How a result was produced: its commands in a code block, and for timed runs the date and load. */
export function provenance(result: ResultFile, opts: { maxCommands?: number } = {}): string {
  const lines = Object.values(result.fixtures).map((c) => `${c} > ${fixtureName(result, c)}.json`)
  const commands = result.runs.map((r) => withFixtures(result, r.command))
  const shown = commands.slice(0, opts.maxCommands ?? commands.length)
  lines.push(...shown)
  if (shown.length < commands.length)
    lines.push(`# … ${commands.length - shown.length} more: the same with the other ${varying(result.runs)}`)
  const timed = result.runs.filter((r) => r.load)
  const when = timed.length
    ? `Measured ${result.ranAt} UTC on this project's shared 2-core VM, under the bench lock; 1-minute load before → after: ${timed
        .map((r) => `${r.load?.[0].toFixed(2)} → ${r.load?.[1].toFixed(2)}`)
        .join(', ')}.`
    : `Computed ${result.ranAt} UTC (deterministic: no dependence on the machine's load).`
  return `\`\`\`sh\ncd packages/runtime    # after a build; codebook = node bin/codebook.js\n${lines.join('\n')}\n\`\`\`\n\n${when} Result file: \`docs/data/reproductions/${result.id}.json\` (\`npx tsx bench/reproductions/run.ts ${result.id}\`).`
}

const fixtureName = (result: ResultFile, command: string) =>
  Object.entries(result.fixtures).find(([, c]) => c === command)?.[0] ?? 'fixture'
// The runs name fixtures by their temporary path; show the fixture's name instead.
const withFixtures = (result: ResultFile, command: string) =>
  Object.keys(result.fixtures).reduce((c, name) => c.replace(`{${name}}`, `${name}.json`), command)
const varying = (runs: ResultRun[]) => {
  const keys = Object.keys(runs[0]?.label ?? {}).filter((k) => new Set(runs.map((r) => r.label[k])).size > 1)
  return keys.join(', ')
}
