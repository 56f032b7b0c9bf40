import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeNpy } from '../formats/index.ts'
import { createRng } from '../random/rng.ts'

// The CLI as a user runs it: a real process, its real stdout and stderr.
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href
const entry = fileURLToPath(new URL('./entry.ts', import.meta.url))

interface Exit {
  code: number | null
  stdout: string
  stderr: string
}

function codebook(args: string[], opts: { closeAfterFirstLine?: boolean } = {}): Promise<Exit> {
  const child = spawn(process.execPath, ['--conditions=@codebook/source', '--import', tsx, entry, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
    // `| head -1`: the reader goes away after its first line.
    if (opts.closeAfterFirstLine && stdout.includes('\n')) child.stdout.destroy()
  })
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })))
}

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'codebook-cli-entry-'))
  const rng = createRng(5)
  const n = 4000
  const d = 8
  const x = new Float32Array(n * d)
  for (let i = 0; i < x.length; i++) x[i] = rng.normal() + (Math.floor(i / d) % 7)
  await writeNpy(join(dir, 'x.npy'), x, n, d)
  await writeFile(join(dir, 'features.txt.gz'), gzipSync('1 0 0 0.5 0.25\n1 0 8 0.5 0.75\n'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('the codebook process', () => {
  it('answers kmeans on a text file with the convert command to run, exit code 2', async () => {
    const file = join(dir, 'features.txt.gz')
    const r = await codebook(['kmeans', '--data', file, '--k', '2'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('DATA_NOT_NPY: ')
    expect(r.stderr).toContain('codebook kmeans reads .npy')
    expect(r.stderr).toContain(`codebook convert ${file} features.npy`)
  })

  it('says the centroids were not written when kmeans has no --out', async () => {
    const r = await codebook(['kmeans', '--data', join(dir, 'x.npy'), '--k', '7', '--iterations', '2'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^done: .*centroids not written \(add --out FILE\.npy/m)
  })

  it('stops quietly with code 0 when its reader closes the pipe (--json | head -1)', async () => {
    const r = await codebook(
      ['kmeans', '--data', join(dir, 'x.npy'), '--k', '7', '--iterations', '300', '--tol', '0', '--json'],
      { closeAfterFirstLine: true },
    )
    expect(JSON.parse(r.stdout.split('\n')[0]!).iteration).toBe(1)
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
  })
})
