import cliProgress from 'cli-progress'

/** Where a command writes: stdout for results, stderr for progress and messages. Tests pass collecting streams. */
export interface CommandIo {
  stdout: { write(s: string): unknown }
  stderr: NodeJS.WritableStream & { isTTY?: boolean }
}

/** The process's own streams. */
export function processIo(): CommandIo {
  return { stdout: process.stdout, stderr: process.stderr }
}

/** A byte-progress display that is a no-op unless stderr is a terminal (pipes and logs stay clean). */
export interface ByteProgress {
  update(bytesRead: number, totalBytes: number, rows: number): void
  stop(): void
}

/** Starts a progress bar over `totalBytes` on `stream` when it is a TTY. */
export function startByteProgress(stream: CommandIo['stderr'], totalBytes: number): ByteProgress {
  if (!stream.isTTY) return { update() {}, stop() {} }
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: '{bar} {percentage}% | {mb}/{totalMb} MB | {rows} rows | ETA {eta_formatted}',
      hideCursor: true,
      clearOnComplete: true,
    },
    cliProgress.Presets.shades_classic,
  )
  const mb = (b: number) => (b / 1e6).toFixed(1)
  bar.start(Math.max(totalBytes, 1), 0, { mb: mb(0), totalMb: mb(totalBytes), rows: 0 })
  return {
    update: (bytesRead, total, rows) =>
      bar.update(Math.min(bytesRead, total), { mb: mb(bytesRead), totalMb: mb(total), rows }),
    stop: () => bar.stop(),
  }
}

/** A count-progress display (e.g. runs of a study): a no-op unless stderr is a terminal. */
export interface CountProgress {
  update(done: number): void
  stop(): void
}

/** Starts a progress bar over `total` items named `unit` on `stream` when it is a TTY. */
export function startCountProgress(stream: CommandIo['stderr'], total: number, unit: string): CountProgress {
  if (!stream.isTTY) return { update() {}, stop() {} }
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: `{bar} {percentage}% | {value}/{total} ${unit} | ETA {eta_formatted}`,
      hideCursor: true,
      clearOnComplete: true,
    },
    cliProgress.Presets.shades_classic,
  )
  bar.start(Math.max(total, 1), 0)
  return { update: (done) => bar.update(Math.min(done, total)), stop: () => bar.stop() }
}
