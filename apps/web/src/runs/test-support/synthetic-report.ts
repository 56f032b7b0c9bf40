import { type IterationReport, stageNames } from '@codebook/shared'

function stage(ms: number) {
  return { ms, bytes: ms * 10, intraRackBytes: ms * 10, crossRackBytes: 0 }
}

function workerStage(ms: number) {
  return { ms, bytesSent: 1, bytesReceived: 1, intraRackBytes: 1, crossRackBytes: 0 }
}

/**
 * One schema-valid report whose five stages take `stageMs` each; worker `rank`'s map takes
 * `workerMapMs[rank]` and its other stages `otherStageMs(rank)` (0 unless given).
 */
export function syntheticReport(
  iteration: number,
  stageMs: number,
  workerMapMs: number[] = [1],
  otherStageMs: (rank: number) => number = () => 0,
): IterationReport {
  const stages = Object.fromEntries(stageNames.map((s) => [s, stage(stageMs)])) as IterationReport['stages']
  return {
    iteration,
    stages,
    inertia: 100 / iteration,
    reassigned: 0,
    emptyClustersSplit: 0,
    encoding: { sparseMessages: 0, denseMessages: 0 },
    restarts: 0,
    workers: workerMapMs.map((m, rank) => ({
      rank,
      rack: 'rack-0',
      points: 10,
      inertia: 1,
      reassigned: 0,
      stages: Object.fromEntries(
        stageNames.map((s) => [s, workerStage(s === 'map' ? m : otherStageMs(rank))]),
      ) as IterationReport['workers'][number]['stages'],
    })),
  }
}
