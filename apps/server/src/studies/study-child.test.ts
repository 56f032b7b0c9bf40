import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { expect, it } from 'vitest'
import { isAlive, waitFor } from '../test-support/processes.ts'

const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href
const processModule = pathToFileURL(fileURLToPath(new URL('./study-process.ts', import.meta.url))).href

it('a study child whose server died exits instead of playing on as an orphan', async () => {
  // A stand-in server: starts a long study, prints the child's pid and dies without a word.
  const script = `
    const { runStudyProcess } = await import(${JSON.stringify(processModule)})
    const proc = runStudyProcess(
      { kind: 'reductions', n: 1024, cv: [0.01, 0.1, 0.3, 1, 3, 10], muC: [0], runs: 100000, seed: 1 },
      { onProgress: () => { console.log(proc.child.pid); process.exit(0) }, onResult: () => {} },
    )`
  const server = spawn(
    process.execPath,
    ['--conditions=@codebook/source', '--import', tsx, '--input-type=module', '-e', script],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  let out = ''
  server.stdout.on('data', (b: Buffer) => {
    out += b.toString()
  })
  await new Promise((resolve) => server.once('exit', resolve))
  const pid = Number(out.trim())
  expect(pid).toBeGreaterThan(0)
  try {
    // Without the check it would run for hours; with it, it exits at its next progress tick.
    await waitFor('the orphaned study child to exit', async () => !(await isAlive(pid)), 30_000, 50)
  } finally {
    if (await isAlive(pid)) process.kill(pid, 'SIGKILL')
  }
}, 90_000)
