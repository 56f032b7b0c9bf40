import { type ChildProcess, spawn } from 'node:child_process'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { workerCommand } from '@codebook/runtime/collectives'
import { openNpy } from '@codebook/runtime/formats'
import { generateTopology } from '@codebook/runtime/topology'
import {
  CreateRun,
  type CreateRunInput,
  Dataset,
  IterationReport,
  JobEventList,
  Run,
  RunList,
  RunLogData,
  type Topology,
  topologyNodes,
} from '@codebook/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../start-server.ts'
import { makeVectors, npyFloat32 } from '../test-support/payloads.ts'
import { waitFor } from '../test-support/processes.ts'
import { type SlurmCluster, slurmUnavailable, startSlurm } from '../test-support/slurm.ts'
import { authHeaders, makeTempHome, testConfig } from '../test-support/test-server.ts'

const noSlurm = slurmUnavailable()
if (noSlurm) console.warn(noSlurm)

describe('runs on workers that join: the join and slurm launchers', () => {
  let server: RunningServer
  let home: string
  let cleanup: () => Promise<void>
  let smallId: string
  let largeId: string
  const started: ChildProcess[] = []

  const post = (path: string, body?: unknown) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { ...authHeaders, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
  const getRun = async (id: string) => Run.parse(await (await fetch(`${server.url}/api/runs/${id}`)).json())
  const events = async (id: string) =>
    JobEventList.parse(await (await fetch(`${server.url}/api/runs/${id}/events`)).json()).events
  const reports = async (id: string) =>
    (await events(id)).filter((e) => e.type === 'iteration').map((e) => IterationReport.parse(e.data))
  const logs = async (id: string) =>
    (await events(id)).filter((e) => e.type === 'log').map((e) => RunLogData.parse(e.data).message)

  async function create(body: CreateRunInput): Promise<Run> {
    const res = await post('/api/runs', body)
    expect(res.status).toBe(201)
    return Run.parse(await res.json())
  }

  async function centroids(run: Run): Promise<number[]> {
    const f = await openNpy(join(home, 'vocabularies', `${run.vocabularyId}.npy`))
    try {
      return Array.from(await f.readRows(0, f.n))
    } finally {
      await f.close()
    }
  }

  /** The same run with the local launcher must learn the same vocabulary in as many iterations. */
  async function expectSameAsLocal(run: Run): Promise<void> {
    const { launcher: _, slurm: __, topologyId: ___, topologyVersion: ____, ...params } = run.params
    const local = await server.app.runs.settled((await create({ ...params, launcher: 'local' })).id)
    expect(local.status).toBe('succeeded')
    expect(run.iteration).toBe(local.iteration)
    expect(run.inertia).toBeCloseTo(local.inertia!, 6)
    const [a, b] = [await centroids(run), await centroids(local)]
    expect(a.length).toBe(b.length)
    for (const [i, x] of a.entries()) expect(x).toBeCloseTo(b[i]!, 5)
  }

  /**
   * Runs a join command (`CODEBOOK_JOIN_TOKEN=… codebook worker …`) as a shell would: the
   * runtime's worker entry with the words after `codebook worker`, the variable in its environment.
   */
  function startWorker(
    joinCommand: string,
    extra: string[] = [],
  ): ChildProcess & { stderr: NodeJS.ReadableStream } {
    const { command, args } = workerCommand()
    const [assignment, , , ...words] = joinCommand.split(' ')
    const [name, value] = assignment!.split('=') as [string, string]
    const child = spawn(command, [...args, ...words, ...extra], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, [name]: value },
    })
    started.push(child)
    return child as ChildProcess & { stderr: NodeJS.ReadableStream }
  }

  async function launchOf(id: string) {
    let run = await getRun(id)
    await waitFor(
      'the run to record its launch',
      async () => {
        run = await getRun(id)
        return run.launch?.joinCommand !== undefined || run.status !== 'running'
      },
      30_000,
      50,
    )
    return run.launch!
  }

  beforeAll(async () => {
    const h = await makeTempHome()
    home = h.home
    server = await startServer(testConfig(h.home, undefined))
    cleanup = async () => {
      for (const c of started) c.kill('SIGKILL')
      await server.close()
      await h.remove()
    }
    const upload = async (n: number, d: number, seed: number) => {
      const res = await fetch(`${server.url}/api/datasets?name=v${seed}&format=npy&wait=true`, {
        method: 'POST',
        headers: { ...authHeaders, 'content-type': 'application/octet-stream' },
        body: npyFloat32(makeVectors(n, d, seed)),
      })
      return Dataset.parse(await res.json()).id
    }
    smallId = await upload(300, 8, 5)
    // Enough work per iteration that a worker can be killed while the run is iterating.
    largeId = await upload(40_000, 16, 12)
  }, 60_000)
  afterAll(() => cleanup())

  it('join: refuses a worker with a wrong secret, then runs on the workers that present it, racked by their host names', async () => {
    const topology = generateTopology({ racks: 2, nodesPerRack: 1, nodeGbps: 1, uplinkGbps: 10 })
    const { id: topologyId } = (await (await post('/api/topologies', { topology })).json()) as { id: string }
    const nodes = topologyNodes(topology)
    const run = await create({
      datasetId: smallId,
      k: 4,
      maxIterations: 3,
      workers: 2,
      kernel: 'reference',
      tol: 0,
      topologyId,
      launcher: 'join',
    })
    const launch = await launchOf(run.id)
    expect(launch.joinCommand).toMatch(
      /^CODEBOOK_JOIN_TOKEN=\S{16,} codebook worker --join 127\.0\.0\.1:\d+$/,
    )
    expect((await logs(run.id)).some((l) => l.includes(launch.joinCommand!))).toBe(true)

    const wrong = startWorker(launch.joinCommand!.replace(/=\S+/, '=not-the-secret'))
    let stderr = ''
    wrong.stderr.on('data', (b: Buffer) => {
      stderr += b.toString()
    })
    expect(await new Promise((r) => wrong.once('exit', r))).toBe(2)
    expect(stderr).toMatch(/JOIN_REFUSED/)

    // Joined in the reverse of topology order: placement follows the host names, not the join order.
    for (const n of [...nodes].reverse()) startWorker(launch.joinCommand!, ['--host-name', n.node.name])
    const done = await server.app.runs.settled(run.id)
    expect(done.status).toBe('succeeded')
    expect(done.launch?.waiting).toBeNull()
    const rackOf = new Map(nodes.map((n) => [n.node.name, n.rack]))
    expect(done.launch?.workers.map((w) => w.rack)).toEqual(
      done.launch?.workers.map((w) => rackOf.get(w.host)),
    )
    for (const r of await reports(run.id)) {
      expect(r.workers.map((w) => w.rack)).toEqual(r.workers.map((w) => rackOf.get(w.host!)))
      // Two hosts on two racks: every broadcast byte crosses racks.
      expect(r.stages.broadcast.crossRackBytes).toBe(4 * 8 * 4)
    }
    await expectSameAsLocal(done)
  }, 120_000)

  it('join: a run waiting for its workers says so, and cancel stops the wait', async () => {
    const run = await create({ datasetId: smallId, k: 2, maxIterations: 1, workers: 1, launcher: 'join' })
    const launch = await launchOf(run.id)
    await waitFor('the waiting line', async () =>
      (await logs(run.id)).includes(`Waiting for 1 worker: run on each host \`${launch.joinCommand}\`.`),
    )
    // The runs list says why the run holds its slot: 0 of 1 joined, and when the wait times out.
    const listed = RunList.parse(await (await fetch(`${server.url}/api/runs`)).json()).runs.find(
      (r) => r.id === run.id,
    )
    const waiting = listed?.launch?.waiting
    expect(waiting).toMatchObject({ joined: 0, expected: 1 })
    const left = Date.parse(waiting!.timeoutAt) - Date.now()
    expect(left).toBeGreaterThan(0)
    expect(left).toBeLessThanOrEqual(60_000) // the test config's join timeout
    const cancelled = await post(`/api/runs/${run.id}/cancel`)
    expect(cancelled.status).toBe(200)
    expect((await server.app.runs.settled(run.id)).status).toBe('cancelled')
  }, 60_000)

  describe.skipIf(noSlurm !== null)('slurm (a one-node cluster on this machine)', () => {
    let cluster: SlurmCluster
    const savedConf = process.env.SLURM_CONF

    beforeAll(async () => {
      cluster = await startSlurm()
      // The server's sbatch, srun and scancel find the test cluster through it.
      process.env.SLURM_CONF = cluster.env.SLURM_CONF
    }, 120_000)
    afterAll(async () => {
      if (savedConf === undefined) delete process.env.SLURM_CONF
      else process.env.SLURM_CONF = savedConf
      await cluster?.stop()
    }, 60_000)

    it('runs k-means on workers submitted with sbatch, racked by topology.conf, replaces a killed worker through Slurm, to the local vocabulary', async () => {
      // The cluster's topology.conf, imported as a user would: this node under switch leaf2.
      const parsed = await post('/api/topology-formats/parse', {
        format: 'slurm',
        text: `SwitchName=leaf1 Nodes=other[1-3]\nSwitchName=leaf2 Nodes=${cluster.node}\n`,
      })
      const { topology } = (await parsed.json()) as { topology: Topology }
      const saved = await post('/api/topologies', { topology })
      const { id: topologyId } = (await saved.json()) as { id: string }
      const rackOfNode = topologyNodes(topology).find((n) => n.node.name === cluster.node)!.rack
      const run = await create({
        topologyId,
        datasetId: largeId,
        // Enough iterations (tol 0 keeps Lloyd going while vectors move) that the kill lands mid-run on a fast machine.
        k: 32,
        maxIterations: 40,
        workers: 2,
        kernel: 'reference',
        tol: 0,
        launcher: 'slurm',
        slurm: { partition: cluster.partition, nodes: 1, timeLimit: '10' },
      })
      const launch = await launchOf(run.id)
      const port = /--join \S+:(\d+)/.exec(launch.joinCommand!)![1]!
      await waitFor(
        'the first iteration',
        async () => (await server.app.runs.get(run.id)).iteration >= 1,
        60_000,
        5,
      )
      const pids = await processesWith(`127.0.0.1:${port}`)
      expect(pids.length).toBe(2)
      process.kill(pids[0]!, 'SIGKILL')

      const done = await server.app.runs.settled(run.id)
      expect(done.status).toBe('succeeded')
      expect(done.launch?.slurmJobIds.length).toBe(2)
      const lines = await logs(run.id)
      expect(lines).toContainEqual(`Slurm job ${done.launch!.slurmJobIds[0]} submitted: 2 worker tasks.`)
      expect(
        lines.some((l) => l.startsWith(`Slurm job ${done.launch!.slurmJobIds[1]} submitted: a replacement`)),
      ).toBe(true)
      const all = await reports(run.id)
      expect(all.some((r) => r.restarts > 0)).toBe(true)
      expect(done.launch?.workers).toEqual([
        { rank: 0, host: cluster.node, rack: rackOfNode },
        { rank: 1, host: cluster.node, rack: rackOfNode },
      ])
      for (const r of all) expect(r.workers.map((w) => w.rack)).toEqual([rackOfNode, rackOfNode])
      await expectSameAsLocal(done)
      await waitFor(
        "the run's Slurm jobs to end",
        async () => (await cluster.jobs()).length === 0,
        30_000,
        200,
      )
    }, 240_000)

    it("cancel scancels the run's job; a job sbatch refuses fails the run with SLURM_SUBMIT_FAILED", async () => {
      const run = await create({
        datasetId: largeId,
        k: 16,
        maxIterations: 1000,
        workers: 2,
        tol: 0,
        launcher: 'slurm',
        slurm: { partition: cluster.partition },
      })
      await submitted(server, run.id)
      expect((await post(`/api/runs/${run.id}/cancel`)).status).toBe(200)
      expect((await server.app.runs.settled(run.id)).status).toBe('cancelled')
      await waitFor(
        'the cancelled job to leave the queue',
        async () => (await cluster.jobs()).length === 0,
        30_000,
        200,
      )

      const refused = await create({
        datasetId: smallId,
        k: 2,
        maxIterations: 1,
        workers: 1,
        launcher: 'slurm',
        slurm: { partition: 'no-such-partition' },
      })
      const failed = await server.app.runs.settled(refused.id)
      expect(failed).toMatchObject({ status: 'failed', error: { code: 'SLURM_SUBMIT_FAILED' } })
      expect(failed.error?.message).toMatch(/partition/i)
    }, 120_000)

    it("a server shutdown scancels a running run's job and marks the run interrupted", async () => {
      const h = await makeTempHome()
      let other = await startServer(testConfig(h.home, undefined))
      try {
        const upload = await fetch(`${other.url}/api/datasets?name=s&format=npy&wait=true`, {
          method: 'POST',
          headers: { ...authHeaders, 'content-type': 'application/octet-stream' },
          body: npyFloat32(makeVectors(300, 8, 5)),
        })
        const datasetId = Dataset.parse(await upload.json()).id
        const run = await other.app.runs.create(
          CreateRun.parse({
            datasetId,
            k: 2,
            maxIterations: 1,
            workers: 2,
            launcher: 'slurm',
            slurm: { partition: cluster.partition },
          }),
        )
        await submitted(other, run.id)
        // At once: the workers (seconds to start) have not joined yet, so the run is still waiting for them.
        await other.close()
        await waitFor(
          'the job to leave the queue',
          async () => (await cluster.jobs()).length === 0,
          30_000,
          200,
        )
        other = await startServer(testConfig(h.home, undefined))
        expect((await other.app.runs.get(run.id)).status).toBe('interrupted')
      } finally {
        await other.close()
        await h.remove()
      }
    }, 120_000)
  })
})

/** Resolves once run `id` of `server` has submitted its Slurm job. */
function submitted(server: RunningServer, id: string): Promise<void> {
  return waitFor(
    'the Slurm job',
    async () => ((await server.app.runs.get(id)).launch?.slurmJobIds.length ?? 0) > 0,
    30_000,
    50,
  )
}

/** PIDs of the processes whose command line contains `text` (Linux: read from /proc). */
async function processesWith(text: string): Promise<number[]> {
  const pids: number[] = []
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue
    const cmd = (await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')).replaceAll('\0', ' ')
    // The worker itself, not the srun that started it.
    if (cmd.includes(text) && !cmd.includes('srun')) pids.push(Number(entry))
  }
  return pids
}
