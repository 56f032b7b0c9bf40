import { afterAll, describe, expect, it } from 'vitest'
import { LAB_PAYLOAD_EFFICIENCY } from '../simulator/lab-cluster.ts'
import { runLabBenchBroadcast } from './bench-broadcast.ts'
import { labDown, labUnavailableReason } from './lab-net.ts'
import { mpiUnavailableReason } from './mpi-peer.ts'

// Lab 5: vitest runs one file at a time (fileParallelism: false), and no other test uses 5.
const ID = 5
const reason = (await labUnavailableReason()) ?? (await mpiUnavailableReason())

describe.skipIf(reason !== null)(
  `MPI_Bcast beside the chain in the lab (${reason ?? 'root, Open MPI'})`,
  () => {
    afterAll(async () => {
      await labDown(ID)
    }, 30_000)

    it('times Open MPI over the same four hosts as the runtime, after the algorithms, and no faster than one link allows', async () => {
      const bytes = 2 * 2 ** 20
      const lab = { id: ID, racks: 2, hostsPerRack: 2, nodeMbps: 100, uplinkMbps: 200 }
      const rows = await runLabBenchBroadcast({
        lab,
        bytes,
        hosts: [4],
        algorithms: ['chain'],
        repeat: 1,
        chunkBytes: 64 * 1024,
        seed: 1,
        peers: ['mpi'],
      })
      expect(rows.map((r) => [r.algorithm, r.hosts, r.simulatedSeconds === null])).toEqual([
        ['chain', 4, false],
        ['mpi', 4, true],
      ])
      // The root sends every byte over its 100 Mbit/s link at least once (payload rate: frames cost headers).
      const link = (lab.nodeMbps * 1e6 * LAB_PAYLOAD_EFFICIENCY) / 8
      for (const row of rows) {
        expect(row.seconds).toBeGreaterThan((0.95 * bytes) / link)
        expect(row.seconds).toBeLessThan(60)
      }
    }, 300_000)
  },
)
