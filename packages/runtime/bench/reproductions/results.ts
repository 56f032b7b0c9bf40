/** The result files `run.ts` writes and the report reads. */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The repository's root (this file is packages/runtime/bench/reproductions/results.ts). */
export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '../../../..')

/** One command's output: its rows are the command's JSON lines. */
export interface ResultRun {
  label: Record<string, string | number>
  command: string
  /** The 1-minute load average before and after (timed experiments only). */
  load?: [number, number]
  // biome-ignore lint/suspicious/noExplicitAny: rows are each command's own JSON, read by the section that knows it
  rows: any[]
}

/** docs/data/reproductions/<id>.json */
export interface ResultFile {
  id: string
  /** UTC, minutes. */
  ranAt: string
  /** Fixture name → the command that made it. */
  fixtures: Record<string, string>
  runs: ResultRun[]
}

export const resultPath = (id: string) => join(repoRoot, 'docs/data/reproductions', `${id}.json`)

/** The result file of an experiment, or undefined when it has not been run. */
export function readResult(id: string): ResultFile | undefined {
  const path = resultPath(id)
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as ResultFile) : undefined
}

/** The lines of a JSON-lines file under the repository (the reduction study's data). */
// biome-ignore lint/suspicious/noExplicitAny: see ResultRun.rows
export function readJsonLines(relative: string): any[] {
  return readFileSync(join(repoRoot, relative), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l))
}
