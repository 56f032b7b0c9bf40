import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { openNpy, writeNpy } from '@codebook/runtime/formats'
import { createRng } from '@codebook/runtime/kmeans'
import { Dataset, Run, VocabularyExportJson } from '@codebook/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { repoRoot, startTestServer, type TestServer } from '../support/server.ts'

// A run's init (computed on the run's worker 0) and `codebook kmeans --init M --seed S` must give
// the same centroids: both go through the runtime's initToCheckpoint. Compared end to end, each
// method, on the ONNX kernel (k-means++ and k-means|| run their distance blocks on it).

const exec = promisify(execFile)
const n = 3000
const d = 24
const k = 40

describe('server runs and the CLI start from the same init', () => {
  let server: TestServer
  let dir: string
  let file: string
  let datasetId: string

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'codebook-e2e-init-'))
    file = join(dir, 'x.npy')
    const rng = createRng(9)
    const values = Float32Array.from({ length: n * d }, () => rng.normal() + (rng.int(8) - 4) * 3)
    await writeNpy(file, values, n, d)
    server = await startTestServer()
    const res = await fetch(`${server.url}/api/datasets?name=x&format=npy&wait=true`, {
      method: 'POST',
      headers: { ...server.authHeaders, 'content-type': 'application/octet-stream' },
      body: await readFile(file),
    })
    expect(res.status).toBe(201)
    datasetId = Dataset.parse(await res.json()).id
  })
  afterAll(async () => {
    await server?.close()
    await rm(dir, { recursive: true, force: true })
  })

  for (const init of ['kmeans++', 'kmeans-parallel', 'random'] as const) {
    it(`${init}: the run's vocabulary equals the CLI's --out after the same iterations`, async () => {
      const created = await fetch(`${server.url}/api/runs`, {
        method: 'POST',
        headers: { ...server.authHeaders, 'content-type': 'application/json' },
        body: JSON.stringify({
          datasetId,
          k,
          init,
          seed: 3,
          kernel: 'onnx',
          workers: 1,
          maxIterations: 2,
          tol: 0,
        }),
      })
      expect(created.status).toBe(201)
      const done = await server.app.runs.settled(Run.parse(await created.json()).id)
      expect(done.status).toBe('succeeded')
      const exported = VocabularyExportJson.parse(
        await (await fetch(`${server.url}/api/vocabularies/${done.vocabularyId}/export?format=json`)).json(),
      )
      expect(exported.run.params).toMatchObject({ init })

      const out = join(dir, `${init}.npy`)
      await exec(
        process.execPath,
        [
          '--conditions=@codebook/source',
          '--import',
          'tsx',
          'packages/runtime/src/cli/entry.ts',
          'kmeans',
          ...['--data', file, '--k', String(k), '--init', init, '--seed', '3', '--kernel', 'onnx'],
          ...['--workers', '1', '--iterations', '2', '--tol', '0', '--out', out],
        ],
        { cwd: repoRoot },
      )
      const f = await openNpy(out)
      const cli = Float32Array.from(await f.readRows(0, f.n))
      await f.close()
      // Two Lloyd iterations from different inits would differ by whole cluster moves, not rounding.
      expect(Float32Array.from(exported.centroids.flat())).toEqual(cli)
    })
  }
})
