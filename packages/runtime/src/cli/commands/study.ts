import type { Command } from 'commander'
import { UsageError } from '../../errors.ts'
import { type ReductionAlgorithm, reductionAlgorithms } from '../../reductions/study/algorithms.ts'
import { GRID_COMPUTE_RATIOS, GRID_CVS, type GridRow, gridCell } from '../../reductions/study/grid.ts'
import { type MarkovRow, markovCheck } from '../../reductions/study/markov.ts'
import { playCell, type StudyRow, summariseCell } from '../../reductions/study/run-study.ts'
import { type CommandIo, processIo, startCountProgress } from '../progress.ts'
import { listOf, nonNegativeInt, numberList, positiveInt } from './parse-options.ts'

/** Options of `codebook study reductions`. */
export interface StudyReductionsOptions {
  n: number
  cv: number[]
  muC: number[]
  /** Runs per (cv, μc) cell; default 100,000, or 1,000 a cell with `grid`. */
  runs?: number
  seed: number
  algorithms: ReductionAlgorithm[]
  grid?: boolean
  markov?: boolean
  json?: boolean
}

/** The paper's Figure 3 CVs. */
export const FIGURE3_CVS = [0.01, 0.1, 0.3, 1, 3, 10]

const fixed = (x: number) => x.toFixed(4)

/**
 * `codebook study reductions`: the discrete-event study of the four reductions. By default one
 * row per (algorithm, cv, μc) (Figure 3); `grid` plays Figure 4's CV × μc/μd cells; `markov`
 * checks Tree-dyn against its closed forms (Section 3).
 */
export async function runStudyReductions(
  o: StudyReductionsOptions,
  io: CommandIo = processIo(),
): Promise<StudyRow[] | GridRow[] | MarkovRow> {
  if (o.grid && o.markov)
    throw new UsageError('BAD_OPTION', '--grid and --markov are separate studies: pick one')
  if (o.markov) return markov(o, io)
  if (o.grid) return grid(o, io)
  const runs = o.runs ?? 100_000
  const cells = o.cv.flatMap((cv) => o.muC.map((muC) => ({ n: o.n, cv, muC, runs, seed: o.seed })))
  const progress = startCountProgress(io.stderr, cells.length * runs, 'runs')
  const rows: StudyRow[] = []
  cells.forEach((cell, i) => {
    const cellRows = summariseCell(
      cell,
      playCell({ ...cell, algorithms: o.algorithms }, (done) => progress.update(i * runs + done)),
    )
    rows.push(...cellRows)
    if (o.json) for (const row of cellRows) io.stdout.write(`${JSON.stringify(row)}\n`)
  })
  progress.stop()
  if (!o.json) {
    io.stdout.write(
      `${['algorithm'.padEnd(22), 'cv'.padStart(6), 'muC'.padStart(6), 'mean'.padStart(10), 'q10'.padStart(10), 'q90'.padStart(10)].join(' ')}\n`,
    )
    for (const r of rows)
      io.stdout.write(
        `${[r.algorithm.padEnd(22), String(r.cv).padStart(6), String(r.muC).padStart(6), fixed(r.mean).padStart(10), fixed(r.q10).padStart(10), fixed(r.q90).padStart(10)].join(' ')}\n`,
      )
  }
  return rows
}

function grid(o: StudyReductionsOptions, io: CommandIo): GridRow[] {
  const runs = o.runs ?? 1000
  const cells = GRID_CVS.flatMap((cv) => GRID_COMPUTE_RATIOS.map((muC) => ({ cv, muC })))
  const progress = startCountProgress(io.stderr, cells.length, 'cells')
  const rows = cells.map(({ cv, muC }, i) => {
    const row = gridCell(o.n, cv, muC, runs, o.seed)
    progress.update(i + 1)
    io.stdout.write(
      o.json
        ? `${JSON.stringify(row)}\n`
        : `cv ${String(cv).padStart(6)}  muC/muD ${String(muC).padStart(6)}  fibonacci/tree-dyn ${row.fibonacciOverTreeDyn.toFixed(3)}  best ${row.best}\n`,
    )
    return row
  })
  progress.stop()
  return rows
}

function markov(o: StudyReductionsOptions, io: CommandIo): MarkovRow {
  const runs = o.runs ?? 100_000
  const progress = startCountProgress(io.stderr, runs, 'runs')
  const row = markovCheck(o.n, runs, o.seed, (done) => progress.update(done))
  progress.stop()
  if (o.json) io.stdout.write(`${JSON.stringify(row)}\n`)
  else {
    const gap = (x: number) => `${(((row.simulatedMean - x) / x) * 100).toFixed(2)} %`
    io.stdout.write(
      [
        `Tree-dyn, n = ${row.n}, exponential costs (μd = 1), μc = 0, ${row.runs} runs`,
        `${'simulated'.padEnd(22)} mean ${fixed(row.simulatedMean)}   variance ${fixed(row.simulatedVariance)}`,
        `${'derived closed form'.padEnd(22)} mean ${fixed(row.formulaMean)}   variance ${fixed(row.formulaVariance)}   (simulation ${gap(row.formulaMean)})`,
        row.paperFormulaMean === null
          ? `${'paper, 2·H(n/2) + 2/n'.padEnd(22)} (stated for even n only)`
          : `${'paper, 2·H(n/2) + 2/n'.padEnd(22)} mean ${fixed(row.paperFormulaMean)}   (simulation ${gap(row.paperFormulaMean)})`,
      ].join('\n') + '\n',
    )
  }
  return row
}

/** Registers `codebook study reductions`. */
export function registerStudy(program: Command): void {
  const study = program.command('study').description('Simulation studies of the papers behind Codebook')
  study
    .command('reductions')
    .description(
      'Discrete-event study of the four non-clairvoyant reductions (Benoit, Canon, Marchal): gamma costs, mean communication 1, one line per (algorithm, cv, muC)',
    )
    .option('--n <n>', 'processes', positiveInt('--n'), 64)
    .option(
      '--cv <list>',
      'coefficients of variation of every cost, comma-separated',
      numberList('--cv'),
      FIGURE3_CVS,
    )
    .option('--mu-c <list>', 'mean computation costs μc (μd = 1), comma-separated', numberList('--mu-c'), [0])
    .option(
      '--runs <n>',
      'random instances per cell (default 100000; 1000 with --grid)',
      positiveInt('--runs'),
    )
    .option('--seed <n>', 'seed of the instances', nonNegativeInt('--seed'), 1)
    .option(
      '--algorithms <list>',
      `comma-separated: ${reductionAlgorithms.join(', ')}`,
      listOf('--algorithms', reductionAlgorithms),
      [...reductionAlgorithms],
    )
    .option('--grid', 'Figure 4: every algorithm over CV × μc/μd (0.01 … 10 × 0.01 … 100), one line per cell')
    .option('--markov', 'Section 3: Tree-dyn with exponential costs, μc = 0, beside its closed forms')
    .option('--json', 'one JSON object per line')
    .action(async (opts) => {
      await runStudyReductions(opts)
    })
}
