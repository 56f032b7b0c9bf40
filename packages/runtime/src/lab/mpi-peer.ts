import { execFile } from 'node:child_process'
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { CodebookError } from '../errors.ts'
import type { LabHost } from './lab-plan.ts'

const run = promisify(execFile)

/** The peer's source: `native/mpi-bcast.c` (the same place from src/lab and dist/lab). */
const SOURCE = fileURLToPath(new URL('../../native/mpi-bcast.c', import.meta.url))

/** Why `--peer mpi` cannot run here (Open MPI's `mpirun` or `mpicc` missing), or null. */
export async function mpiUnavailableReason(): Promise<string | null> {
  for (const tool of ['mpirun', 'mpicc'])
    try {
      await run(tool, ['--version'], { timeout: 10_000 })
    } catch {
      return `${tool} not found: install Debian's openmpi-bin and libopenmpi-dev`
    }
  return null
}

/** An MPI_Bcast peer built for one lab: its binary and its launch agent, in a temporary directory. */
export interface MpiPeer {
  /** Times MPI_Bcast of `bytes` over the first `count` hosts: one warm-up, then `repeat` rounds (seconds each). */
  time(count: number, bytes: number, repeat: number): Promise<number[]>
  close(): Promise<void>
}

/**
 * Compiles `native/mpi-bcast.c` with `mpicc` and writes the `plm_rsh_agent` through which
 * `mpirun` (run in host 0's namespace) starts its daemons: the agent enters the namespace of
 * the host address Open MPI names, under a hostname of its own (a UTS namespace), since every
 * namespace shares the machine's hostname and Open MPI tells nodes apart by it.
 * @throws CodebookError `LAB_NO_MPI` when Open MPI is not installed.
 */
export async function startMpiPeer(hosts: readonly LabHost[]): Promise<MpiPeer> {
  const reason = await mpiUnavailableReason()
  if (reason) throw new CodebookError('LAB_NO_MPI', `--peer mpi: ${reason}`)
  const dir = await mkdtemp(join(tmpdir(), 'codebook-mpi-'))
  try {
    const binary = join(dir, 'mpi-bcast')
    await run('mpicc', ['-O2', '-o', binary, SOURCE], { timeout: 120_000 })
    const agent = join(dir, 'agent.sh')
    const cases = hosts.map((h) => `${h.address}) ns=${h.netns};;`).join('\n')
    await writeFile(
      agent,
      `#!/bin/sh\nhost=$1; shift\ncase "$host" in\n${cases}\n*) echo "no lab host $host" >&2; exit 1;;\nesac\nexec nsenter --net=/run/netns/$ns unshare --uts sh -c "hostname $ns; $*"\n`,
    )
    await chmod(agent, 0o755)
    return {
      async time(count, bytes, repeat) {
        const used = hosts.slice(0, count)
        const root = used[0]!
        // The lab's own /19 (every host and rack subnet): MPI's data and control stay on the lab's links.
        const [a, b, c] = root.address.split('.')
        const subnet = `${a}.${b}.${Number(c) & ~31}.0/19`
        const mpirun = [
          'mpirun',
          ...['-np', String(count), '--host', used.map((h) => `${h.address}:1`).join(',')],
          ...['--mca', 'plm_rsh_agent', agent, '--mca', 'btl', 'tcp,self'],
          // Lab hosts share this machine's cores: a rank waiting for data must yield, not spin (as the runtime's workers do).
          ...['--mca', 'mpi_yield_when_idle', '1'],
          ...['--mca', 'btl_tcp_if_include', subnet, '--mca', 'oob_tcp_if_include', subnet],
          ...[binary, String(bytes), String(repeat)],
        ].join(' ')
        const { stdout } = await run(
          'nsenter',
          [
            `--net=/run/netns/${root.netns}`,
            'unshare',
            '--uts',
            'sh',
            '-c',
            `hostname ${root.netns}; exec ${mpirun}`,
          ],
          {
            timeout: 900_000,
            maxBuffer: 1 << 20,
            env: { ...process.env, OMPI_ALLOW_RUN_AS_ROOT: '1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: '1' },
          },
        )
        const times = stdout
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => (JSON.parse(l) as { seconds: number }).seconds)
        if (times.length !== repeat)
          throw new CodebookError('LAB_MPI_FAILED', `mpirun printed ${times.length} of ${repeat} rounds`)
        return times
      },
      close: () => rm(dir, { recursive: true, force: true }),
    }
  } catch (err) {
    await rm(dir, { recursive: true, force: true })
    throw err
  }
}
