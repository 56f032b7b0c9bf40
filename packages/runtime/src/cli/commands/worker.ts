import type { Command } from 'commander'
import { workerApplications } from '../../applications.ts'
import { parseHostPort } from '../../framework/spawn.ts'
import { runWorker } from '../../framework/worker.ts'

/** Registers `codebook worker --join HOST:PORT [--rack R]`: a worker node started apart from the driver. */
export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description(
      'Run a worker node that registers with a driver over TCP (for workers started by SSH, Slurm srun or a Kubernetes Job). ' +
        'It opens its data-plane listener on --host, serves the driver until the run ends, then exits.',
    )
    .requiredOption('--join <host:port>', "the driver's control address")
    .option('--rack <rack>', 'rack of this node (a topology given to the driver overrides it)')
    .option(
      '--host <host>',
      'data-plane listen address other workers reach this one at (default: the local address that reaches the driver)',
    )
    .option(
      '--token <token>',
      'token the driver gave this worker (a driver that spawns workers names their rank by it)',
    )
    .action(async (o: { join: string; rack?: string; host?: string; token?: string }) => {
      await runWorker({
        join: parseHostPort(o.join),
        applications: workerApplications,
        rack: o.rack,
        host: o.host,
        token: o.token,
        now: () => performance.now(),
      })
    })
}
