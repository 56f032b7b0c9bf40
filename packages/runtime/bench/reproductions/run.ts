/**
 * Runs experiments and stores their output as result files for the report:
 *
 *   npx tsx bench/reproductions/run.ts <id>…      (cwd packages/runtime)
 *
 * Each run's stdout (one JSON object per line) becomes docs/data/reproductions/<id>.json with the
 * commands, the date and, for timed experiments, the machine's 1-minute load before and after.
 * Timed experiments take the machine-wide bench lock per command, so figures are not shared with
 * another benchmark. Then `npx tsx bench/reproductions/render.ts` rewrites docs/reproductions.md.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { experiment } from './experiments.ts'
import { type ResultFile, resultPath } from './results.ts'

const load = () => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0])
// The CLI from source (what bin/codebook.js runs once built), so a rebuild of dist/ mid-experiment cannot break it.
const codebook = ['node', '--conditions=@codebook/source', '--import', 'tsx', 'src/cli/entry.ts']
const cli = (argv: string[], timed: boolean) => {
  const [cmd, ...args] = timed
    ? ['flock', '/tmp/codebook-bench.lock', 'timeout', '900', ...codebook, ...argv]
    : [...codebook, ...argv]
  return execFileSync(cmd as string, args, {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
}
const shellWords = (argv: string[]) =>
  argv.map((a) => (/^[\w@%+=:,./{}-]+$/.test(a) ? a : `'${a}'`)).join(' ')

for (const id of process.argv.slice(2)) {
  const e = experiment(id)
  const dir = mkdtempSync(join(tmpdir(), 'codebook-repro-'))
  try {
    const paths: Record<string, string> = {}
    for (const [name, argv] of Object.entries(e.fixtures ?? {})) {
      paths[name] = join(dir, `${name}.json`)
      writeFileSync(paths[name], cli(argv, false))
    }
    const fill = (argv: string[]) =>
      argv.map((a) => a.replace(/^\{(\w+)\}$/, (_, n: string) => paths[n] ?? a))
    const result: ResultFile = {
      id,
      ranAt: new Date().toISOString().slice(0, 16).replace('T', ' '),
      fixtures: Object.fromEntries(
        Object.entries(e.fixtures ?? {}).map(([n, argv]) => [n, `codebook ${shellWords(argv)}`]),
      ),
      runs: [],
    }
    for (const run of e.runs) {
      const before = load()
      process.stderr.write(`${id} ${JSON.stringify(run.label)} (load ${before})\n`)
      const rows = cli(fill(run.argv), e.timed === true)
        .split('\n')
        .filter((line) => line.trim().startsWith('{'))
        .map((line) => JSON.parse(line))
      result.runs.push({
        label: run.label,
        command: `codebook ${shellWords(run.argv)}`,
        ...(e.timed ? { load: [before, load()] as [number, number] } : {}),
        rows,
      })
    }
    writeFileSync(resultPath(id), `${JSON.stringify(result, null, 1)}\n`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
