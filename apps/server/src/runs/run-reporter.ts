import type { IterationReport, RunLaunch, RunLogData, RunProgressData } from '@codebook/shared'

/**
 * What a run's driver tells the server while it trains: the driver runs in its own process
 * (`run-driver-child.ts`) and these calls become IPC messages the server stores in order.
 */
export interface RunReporter {
  /** A `log` event. */
  say(level: RunLogData['level'], message: string): Promise<void>
  /** A `progress` event. */
  progressed(data: RunProgressData): Promise<void>
  /** How the workers were started and where they are (stored on the run). */
  launched(launch: RunLaunch): Promise<void>
  /**
   * An iteration's report, its checkpoint already on disk; resolves once the server has stored
   * it (the run's resume point), so the workers may drop the previous checkpoint.
   */
  iteration(report: IterationReport): Promise<void>
}
