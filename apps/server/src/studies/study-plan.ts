import {
  GRID_COMPUTE_RATIOS,
  GRID_CVS,
  type GridRow,
  gridCell,
  type MarkovRow,
  markovCheck,
  playCell,
  type StudyRow,
  summariseCell,
} from '@codebook/runtime/netsim'
import type { StudyResults } from '@codebook/shared'
import type { StudyJob } from './study-process.ts'

/** Where a study reports: results per cell, and progress as runs (or cells) done of the total. */
export interface StudySink {
  result(rows: StudyRow[] | GridRow[] | MarkovRow[]): void
  progress(done: number, total: number, unit: string): void
}

/**
 * Plays a study exactly as `codebook study reductions` does for the same options (same cells
 * in the same order, same seed), so a stored study equals the CLI's output.
 */
export function playStudy(job: StudyJob, sink: StudySink): void {
  if (job.kind === 'markov') {
    const row = markovCheck(job.n, job.runs, job.seed, (done) => sink.progress(done, job.runs, 'runs'))
    sink.result([row])
  } else if (job.kind === 'grid') {
    const cells = GRID_CVS.flatMap((cv) => GRID_COMPUTE_RATIOS.map((muC) => ({ cv, muC })))
    cells.forEach(({ cv, muC }, i) => {
      sink.result([gridCell(job.n, cv, muC, job.runs, job.seed)])
      sink.progress(i + 1, cells.length, 'cells')
    })
  } else {
    const cells = job.cv.flatMap((cv) =>
      job.muC.map((muC) => ({ n: job.n, cv, muC, runs: job.runs, seed: job.seed })),
    )
    const total = cells.length * job.runs
    cells.forEach((cell, i) => {
      const makespans = playCell(cell, (done) => sink.progress(i * job.runs + done, total, 'runs'))
      sink.result(summariseCell(cell, makespans))
      sink.progress((i + 1) * job.runs, total, 'runs')
    })
  }
}

/** The grid study's axes, stored with its parameters (the web draws the heat maps on them). */
export const gridAxes = { cvs: GRID_CVS, computeRatios: GRID_COMPUTE_RATIOS }

export type { StudyResults }
