import type { Command } from 'commander'
import { workerApplications } from '../../applications.ts'
import { parseHostPort } from '../../framework/spawn.ts'
import { runWorker } from '../../framework/worker.ts'

/** Registers `CODEBOOK_JOIN_TOKEN=SECRET codebook worker --join HOST:PORT [--rack R] [--host-name N]` (or `--token SECRET`): a worker node started apart from the driver. */
export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description(
      'Run a worker node that registers with a driver over TCP (for workers started by SSH, Slurm srun or a Kubernetes Job). ' +
        'It opens its data-plane listener on --host, serves the driver until the run ends, then exits.',
    )
    .requiredOption('--join <host:port>', "the driver's control address")
    .option(
      '--token <secret>',
      "the run's secret (the driver refuses a worker without it: JOIN_REFUSED); prefer $CODEBOOK_JOIN_TOKEN, since every local user sees a command line in ps",
    )
    .option('--rack <rack>', 'rack of this node (a topology given to the driver overrides it)')
    .option(
      '--host <host>',
      'data-plane listen address other workers reach this one at (default: the local address that reaches the driver; 0.0.0.0: every interface, reached at the address it connects from)',
    )
    .option(
      '--host-name <name>',
      'host name reported to the driver, which a topology maps to a rack (default: this host name)',
    )
    .action(async (o: { join: string; token?: string; rack?: string; host?: string; hostName?: string }) => {
      await runWorker({
        join: parseHostPort(o.join),
        applications: workerApplications,
        token: o.token ?? process.env.CODEBOOK_JOIN_TOKEN,
        rack: o.rack,
        host: o.host,
        hostName: o.hostName,
        now: () => performance.now(),
      })
    })
}
