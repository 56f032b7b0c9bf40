import { readdir, readFile } from 'node:fs/promises'

/** PIDs of the live children of process `parent` (Linux: read from /proc). */
export async function childPids(parent: number): Promise<number[]> {
  const pids: number[] = []
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const status = await readFile(`/proc/${entry}/status`, 'utf8').catch(() => '')
    if (new RegExp(`^PPid:\\s+${parent}$`, 'm').test(status)) pids.push(Number(entry))
  }
  return pids
}

/** True while process `pid` exists (a zombie counts as gone). */
export async function isAlive(pid: number): Promise<boolean> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '')
  return status !== '' && !/^State:\s+Z/m.test(status)
}

/** Waits until `check` holds, polling every `everyMs`; throws naming `what` after `timeoutMs`. */
export async function waitFor(
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs = 20_000,
  everyMs = 5,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
}
