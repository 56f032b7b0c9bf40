import { Command, CommanderError } from 'commander'
import { CodebookError } from '../errors.ts'
import { registerBenchCollective } from './commands/bench-collective.ts'
import { registerBenchKmeans } from './commands/bench-kmeans.ts'
import { registerBenchReduction } from './commands/bench-reduction.ts'
import { registerColumnStats } from './commands/column-stats.ts'
import { registerConvert } from './commands/convert.ts'
import { registerEvaluate } from './commands/evaluate.ts'
import { registerHog } from './commands/hog.ts'
import { registerInspect } from './commands/inspect.ts'
import { registerKmeans } from './commands/kmeans.ts'
import { registerLab } from './commands/lab.ts'
import { registerPlan } from './commands/plan.ts'
import { registerSimulate } from './commands/simulate.ts'
import { registerStudy } from './commands/study.ts'
import { registerTopology } from './commands/topology.ts'
import { registerWorker } from './commands/worker.ts'

/** Exit code for bad input or bad usage: the coded message goes to stderr. */
export const EXIT_BAD_INPUT = 2

/** Builds the `codebook` command tree. Each command lives in `cli/commands/<name>.ts` and registers itself here. */
export function buildProgram(): Command {
  const program = new Command('codebook')
    .description('Codebook: learn visual vocabularies on a Map-Collective runtime')
    .exitOverride()
    .showHelpAfterError()
  registerInspect(program)
  registerConvert(program)
  registerHog(program)
  registerKmeans(program)
  registerWorker(program)
  registerBenchCollective(program)
  registerBenchKmeans(program)
  registerBenchReduction(program)
  registerTopology(program)
  registerSimulate(program)
  registerPlan(program)
  registerStudy(program)
  registerEvaluate(program)
  registerColumnStats(program)
  registerLab(program)
  return program
}

/**
 * Runs the CLI with `argv` (without `node` and the script) and resolves to the process exit code:
 * 0 on success, 2 on bad input or usage (coded message on stderr), 1 on an unexpected failure.
 */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram()
  try {
    await program.parseAsync(argv, { from: 'user' })
    return 0
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version "errors" are normal exits; commander has already printed the message.
      return err.exitCode === 0 ? 0 : EXIT_BAD_INPUT
    }
    if (err instanceof CodebookError) {
      process.stderr.write(`codebook: ${err.code}: ${err.message}\n`)
      return EXIT_BAD_INPUT
    }
    process.stderr.write(`codebook: unexpected failure: ${(err as Error).stack ?? String(err)}\n`)
    return 1
  }
}

/**
 * `codebook kmeans --json | head -1`: once the reader has gone, further writes fail with EPIPE.
 * Like `yes | head`, the CLI then stops quietly with code 0 instead of printing a stack trace;
 * its workers see their control connection close and exit too.
 */
export function exitQuietlyWhenStdoutCloses(stdout: NodeJS.WriteStream = process.stdout): void {
  stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err
    process.exit(0)
  })
}
