import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import net from 'node:net'
import { hostname } from 'node:os'
import { delimiter, join } from 'node:path'
import { waitFor } from './processes.ts'

/** The programs a one-node Slurm cluster needs (Debian's `slurm-wlm` and `munge`). */
const PROGRAMS = ['munged', 'mungekey', 'slurmctld', 'slurmd', 'sbatch', 'srun', 'scancel', 'squeue', 'sinfo']

function onPath(program: string): boolean {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/sbin']
  return dirs.some((dir) => {
    try {
      accessSync(join(dir, program), constants.X_OK)
      return true
    } catch {
      return false
    }
  })
}

/** Why Slurm tests cannot run here (programs missing), or null when they can. */
export function slurmUnavailable(): string | null {
  const missing = PROGRAMS.filter((p) => !onPath(p))
  return missing.length === 0
    ? null
    : `Slurm tests skipped: ${missing.join(', ')} not installed (apt-get install slurm-wlm munge; .ci/run does)`
}

/** A running one-node cluster; Slurm clients find it through `env.SLURM_CONF`. */
export interface SlurmCluster {
  /** Environment for Slurm clients (`sbatch`, `squeue`, …): this cluster's `SLURM_CONF`. */
  env: NodeJS.ProcessEnv
  /** The node's name (this host's short name) and its partition. */
  node: string
  partition: string
  /** Job ids Slurm knows now (pending, running or completing). */
  jobs(): Promise<string[]>
  /** Cancels every job, stops the daemons and removes the state. */
  stop(): Promise<void>
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { env, timeout: 20_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${command} ${args.join(' ')}: ${stderr || err.message}`)) : resolve(stdout),
    )
  })
}

async function freePort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  const { port } = server.address() as net.AddressInfo
  await new Promise((r) => server.close(r))
  return port
}

/** RealMemory for slurm.conf: MemTotal in MiB less a margin, so slurmd never finds less than declared. */
async function realMemoryMiB(): Promise<number> {
  const kib = Number(/^MemTotal:\s+(\d+)/m.exec(await readFile('/proc/meminfo', 'utf8'))?.[1] ?? 0)
  return Math.max(256, Math.floor((kib / 1024) * 0.9) - 256)
}

function slurmConf(dir: string, node: string, ports: [number, number], memory: number): string {
  return `# One-node cluster of the Codebook tests (apps/server/src/test-support/slurm.ts).
ClusterName=codebook-test
SlurmctldHost=${node}(127.0.0.1)
SlurmctldPort=${ports[0]}
SlurmdPort=${ports[1]}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=${dir}/munge.socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation=${dir}/state
SlurmdSpoolDir=${dir}/spool
SlurmctldPidFile=${dir}/slurmctld.pid
SlurmdPidFile=${dir}/slurmd.pid
SlurmctldLogFile=${dir}/slurmctld.log
SlurmdLogFile=${dir}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
InactiveLimit=0
KillWait=2
MinJobAge=5
SlurmdTimeout=30
# Jobs share the two CPUs (a replacement worker must not wait for the first job to end).
NodeName=${node} NodeAddr=127.0.0.1 CPUs=2 RealMemory=${memory} State=UNKNOWN
PartitionName=codebook Nodes=${node} Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8
`
}

/** Stops a daemon: SIGTERM, SIGKILL after `graceMs`. */
async function stopDaemon(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<void>((r) => child.once('exit', () => r()))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
  await exited
  clearTimeout(timer)
}

/**
 * Starts munged, slurmctld and slurmd (as root, in the foreground of this process) with a
 * private munge key and state under a temp dir, and resolves once `sinfo` shows the node idle.
 */
export async function startSlurm(): Promise<SlurmCluster> {
  const dir = await mkdtemp('/tmp/cb-slurm-')
  // munged and slurmd check that the socket's directories are reachable by everyone.
  await chmod(dir, 0o755)
  await Promise.all(['state', 'spool'].map((d) => mkdir(join(dir, d))))
  const node = hostname().split('.')[0]!
  const conf = join(dir, 'slurm.conf')
  await writeFile(conf, slurmConf(dir, node, [await freePort(), await freePort()], await realMemoryMiB()))
  const env = { ...process.env, SLURM_CONF: conf }
  const daemons: ChildProcess[] = []
  const daemon = (command: string, args: string[]) => {
    const child = spawn(command, args, { env, stdio: 'ignore' })
    child.on('error', () => {})
    daemons.push(child)
    return child
  }
  const cluster: SlurmCluster = {
    env,
    node,
    partition: 'codebook',
    async jobs() {
      return (await run('squeue', ['-h', '-o', '%i'], env)).split('\n').filter((l) => l.trim() !== '')
    },
    async stop() {
      // Jobs first, so slurmd has no step left to wait for; then the daemons, newest first.
      const jobs = await cluster.jobs().catch(() => [])
      if (jobs.length > 0) await run('scancel', jobs, env).catch(() => undefined)
      await waitFor(
        'Slurm jobs to end',
        async () => (await cluster.jobs().catch(() => [])).length === 0,
        20_000,
        200,
      ).catch(() => undefined)
      for (const child of daemons.reverse()) await stopDaemon(child)
      await rm(dir, { recursive: true, force: true })
    },
  }
  try {
    await run('mungekey', ['--create', '--keyfile', join(dir, 'munge.key')], env)
    daemon('munged', [
      '--foreground',
      '--force',
      `--socket=${dir}/munge.socket`,
      `--key-file=${dir}/munge.key`,
      `--log-file=${dir}/munged.log`,
      `--pid-file=${dir}/munged.pid`,
      `--seed-file=${dir}/munged.seed`,
    ])
    await waitFor('munged', async () => (await readdir(dir)).includes('munge.socket'), 10_000, 50)
    daemon('slurmctld', ['-D', '-f', conf])
    daemon('slurmd', ['-D', '-f', conf])
    await waitFor(
      `node ${node} idle in sinfo (logs in ${dir})`,
      async () => (await run('sinfo', ['-h', '-n', node, '-o', '%t'], env).catch(() => '')).trim() === 'idle',
      60_000,
      250,
    )
    return cluster
  } catch (err) {
    await cluster.stop()
    throw err
  }
}
