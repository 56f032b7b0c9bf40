import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeNpy } from '@codebook/runtime/formats'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { quietLog } from '../../test-support/quiet-log.ts'
import { createAssignmentRunner, MAX_QUEUED_ASSIGNMENTS } from './assignment-runner.ts'
import { type AssignmentJob, partialDir } from './compute-assignments.ts'

// The runner against real child processes. A dataset whose vectors.npy is a named pipe with no
// writer makes the child block in open(): a computation that never ends by itself, without timing.
describe('assignment runner', () => {
  let dir: string
  let hanging: AssignmentJob
  let missing: AssignmentJob

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'codebook-runner-'))
    await writeNpy(join(dir, 'vocabulary.npy'), new Float32Array([0, 0, 1, 1]), 2, 2)
    await mkdir(join(dir, 'fifo-dataset'))
    execFileSync('mkfifo', [join(dir, 'fifo-dataset', 'vectors.npy')])
    hanging = {
      datasetDir: join(dir, 'fifo-dataset'),
      vocabularyFile: join(dir, 'vocabulary.npy'),
      outDir: join(dir, 'out'),
    }
    missing = { ...hanging, datasetDir: join(dir, 'no-such-dataset'), outDir: join(dir, 'out-missing') }
  })
  afterAll(() => rm(dir, { recursive: true, force: true }))

  it('answers the child’s coded error with its status and no server path', async () => {
    const runner = createAssignmentRunner({
      hidePaths: (m) => m.replaceAll(dir, 'CODEBOOK_HOME'),
      log: quietLog(),
    })
    const err = await runner.compute('m', missing).catch((e: unknown) => e)
    expect(err).toMatchObject({ statusCode: 409, code: 'DATASET_DELETED' })
    expect((err as Error).message).not.toContain(dir)
    await runner.close()
  })

  it('shares a computation per key, bounds the queue, cancels a running child and removes its partial output', async () => {
    const runner = createAssignmentRunner({ hidePaths: (m) => m, log: quietLog() })
    const running = runner.compute('a', hanging)
    expect(runner.compute('a', hanging)).toBe(running)
    const queued = Array.from({ length: MAX_QUEUED_ASSIGNMENTS }, (_, i) =>
      runner.compute(`q${i}`, { ...hanging, outDir: join(dir, `out-q${i}`) }),
    )
    await expect(runner.compute('one-too-many', hanging)).rejects.toMatchObject({
      statusCode: 503,
      code: 'ASSIGNMENTS_BUSY',
    })
    // A queued one is dropped without starting a child.
    await runner.cancel('q0')
    await expect(queued[0]).rejects.toMatchObject({ code: 'ASSIGNMENTS_CANCELLED' })

    // The running child is killed; what it wrote so far goes.
    await mkdir(partialDir(hanging.outDir), { recursive: true })
    await runner.cancel('a')
    await expect(running).rejects.toMatchObject({ statusCode: 409, code: 'ASSIGNMENTS_CANCELLED' })
    expect(existsSync(partialDir(hanging.outDir))).toBe(false)

    // Close: the next one (now running) is killed, the rest refused.
    await runner.close()
    for (const p of queued.slice(1))
      await expect(p).rejects.toMatchObject({
        code: expect.stringMatching(/^(ASSIGNMENTS_CANCELLED|SHUTTING_DOWN)$/),
      })
    await expect(runner.compute('late', hanging)).rejects.toMatchObject({ code: 'SHUTTING_DOWN' })
  })
})
