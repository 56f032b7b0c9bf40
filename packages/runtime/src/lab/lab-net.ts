import { execFile } from 'node:child_process'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { CodebookError } from '../errors.ts'
import { type LabPlan, type LabSpec, labPrefix, planLab } from './lab-plan.ts'

const run = promisify(execFile)

/** The delay line `lab up --delay-ms` runs (the same path from src/lab and dist/lab). */
const DELAY_LINE_SCRIPT = fileURLToPath(new URL('../../scripts/lab-delay-line.py', import.meta.url))

/** Where `lab up` records the spec of each lab (status reads it; cleanup does not need it). */
export const LAB_STATE_DIR = '/run/codebook-lab'

/** Why the lab cannot run here, or null when it can (Linux, root, iproute2 present). */
export async function labUnavailableReason(): Promise<string | null> {
  if (process.platform !== 'linux') return `the network lab needs Linux (this is ${process.platform})`
  if (process.getuid?.() !== 0) return 'the network lab needs root (CAP_NET_ADMIN) to create namespaces'
  // Root in a container may still lack the capabilities: `ip netns add` needs CAP_SYS_ADMIN
  // (it mounts the namespace), links and qdiscs need CAP_NET_ADMIN.
  const status = await readFile('/proc/self/status', 'utf8').catch(() => '')
  const capEff = BigInt(`0x${/^CapEff:\s*([0-9a-f]+)/m.exec(status)?.[1] ?? '0'}`)
  for (const [bit, name] of [
    [12n, 'CAP_NET_ADMIN'],
    [21n, 'CAP_SYS_ADMIN'],
  ] as const)
    if (((capEff >> bit) & 1n) === 0n) return `the network lab needs ${name}, which this process lacks`
  try {
    await run('ip', ['-V'])
    await run('tc', ['-V'])
  } catch {
    return "the network lab needs iproute2 ('ip' and 'tc'): apt-get install iproute2"
  }
  return null
}

async function requireLab(): Promise<void> {
  const reason = await labUnavailableReason()
  if (reason) throw new CodebookError('LAB_UNAVAILABLE', reason)
}

async function exec(argv: string[]): Promise<string> {
  try {
    return (await run(argv[0]!, argv.slice(1), { maxBuffer: 1 << 20 })).stdout
  } catch (err) {
    const e = err as { stderr?: string; message: string }
    throw new CodebookError('LAB_COMMAND_FAILED', `${argv.join(' ')}: ${(e.stderr || e.message).trim()}`)
  }
}

/** Network namespaces whose names start with `prefix`. */
async function namespacesWithPrefix(prefix: string): Promise<string[]> {
  const out = await exec(['ip', 'netns', 'list'])
  // Lines look like "cb0-r0h1 (id: 3)" or just "cb0-r0h1".
  return out
    .split('\n')
    .map((l) => l.trim().split(/\s+/)[0] ?? '')
    .filter((n) => n.startsWith(prefix))
}

/** Process ids running inside network namespace `netns`. */
async function pidsIn(netns: string): Promise<number[]> {
  const out = await exec(['ip', 'netns', 'pids', netns]).catch(() => '')
  return out.split(/\s+/).filter(Boolean).map(Number)
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** What is left of a lab: its namespaces, the processes inside them, and the driver's link. */
export interface LabStatus {
  id: number
  namespaces: string[]
  pids: number[]
  driverLink: boolean
  /** The spec `lab up` recorded, when its state file exists. */
  spec: LabSpec | null
}

/** Finds every remnant of lab `id` by its name prefix (the state file only adds the spec). */
export async function labStatus(id: number): Promise<LabStatus> {
  await requireLab()
  const prefix = labPrefix(id)
  const namespaces = await namespacesWithPrefix(prefix)
  const pids = (await Promise.all(namespaces.map(pidsIn))).flat()
  const links = await exec(['ip', '-o', 'link', 'show'])
  const driverLink = links
    .split('\n')
    .some((l) => l.includes(` ${prefix}host@`) || l.includes(` ${prefix}host:`))
  const spec = await readFile(join(LAB_STATE_DIR, `${prefix.slice(0, -1)}.json`), 'utf8')
    .then((s) => JSON.parse(s) as LabSpec)
    .catch(() => null)
  return { id, namespaces, pids, driverLink, spec }
}

/**
 * Removes lab `id` and anything a crashed run left: kills every process inside its namespaces
 * (TERM, then KILL after a second), deletes the namespaces (their veths go with them), the
 * driver's link (and so its route) and the state file. Idempotent.
 */
export async function labDown(id: number): Promise<void> {
  await requireLab()
  const prefix = labPrefix(id)
  const namespaces = await namespacesWithPrefix(prefix)
  const pids = (await Promise.all(namespaces.map(pidsIn))).flat()
  for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGTERM')
  const deadline = Date.now() + 1000
  while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
  for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL')
  for (const ns of namespaces) await exec(['ip', 'netns', 'del', ns]).catch(() => {})
  await exec(['ip', 'link', 'del', `${prefix}host`]).catch(() => {})
  await rm(join(LAB_STATE_DIR, `${prefix.slice(0, -1)}.json`), { force: true })
}

/**
 * Builds the lab of `spec` after removing whatever an earlier lab with the same id left; on a
 * failure half-way it tears down what it built and rethrows.
 */
export async function labUp(spec: LabSpec): Promise<LabPlan> {
  const plan = planLab(spec)
  await labDown(spec.id)
  try {
    for (const argv of plan.commands) await exec(argv)
    if (plan.delayLine) {
      // Runs in the core namespace, so `lab down` finds it there; it forks away once its TAPs exist.
      const { delayMs, taps, table } = plan.delayLine
      const delay = table ? JSON.stringify(table) : String(delayMs)
      await exec(['ip', 'netns', 'exec', plan.core, 'python3', DELAY_LINE_SCRIPT, delay, ...taps])
    }
    for (const argv of plan.hostCommands) await exec(argv)
    await mkdir(LAB_STATE_DIR, { recursive: true })
    await writeFile(join(LAB_STATE_DIR, `${plan.prefix.slice(0, -1)}.json`), `${JSON.stringify(spec)}\n`)
  } catch (err) {
    await labDown(spec.id)
    throw err
  }
  return plan
}
