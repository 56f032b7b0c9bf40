import net from 'node:net'
import { CodebookError } from '../errors.ts'
import { type InitFromFileRequest, initFromFile } from '../kmeans/init/compute-init.ts'
import type { KernelFactory } from '../kmeans/kernel-registry.ts'
import { type IterateRequest, KmeansWorkerState, type LoadRequest } from '../kmeans/kmeans-worker.ts'
import { DataPlane, type PeerAddress } from '../transport/data-plane.ts'
import { CollectiveSpec, runCollective } from './collective-task.ts'
import { bytesOf, ControlChannel, type ControlMessage } from './control-channel.ts'

/** Options of {@link runWorker}; dependencies are passed in (STYLE §7). */
export interface WorkerOptions {
  /** Driver control address. */
  join: PeerAddress
  /** Rack this worker reports (a topology given to the driver overrides it). */
  rack?: string
  /** Token the driver gave a worker it spawned, so it gets the rank it was spawned for. */
  token?: string
  /** Data-plane listen host. */
  host?: string
  /** Monotonic milliseconds. */
  now: () => number
  /** Builds the assignment kernel of each map task (the reference kernel by default). */
  kernelFactory?: KernelFactory
  connectAttempts?: number
}

/**
 * A worker node: registers with the driver over TCP, opens its data-plane listener, then serves
 * driver requests (set-up, collectives, K-means init and iterations) until told to shut down or the
 * driver goes away. Resolves when the worker has stopped.
 */
export async function runWorker(opts: WorkerOptions): Promise<void> {
  let racks: string[] = []
  let rank = -1
  const host = opts.host ?? '127.0.0.1'
  // Ranks are assigned at set-up, so the listener opens first (rank unknown) to report its port.
  const plane = new DataPlane({ rank: -1 })
  const addr = await plane.listen(host)
  const control = new ControlChannel(await connectWithRetry(opts.join, opts.connectAttempts ?? 40))
  const kmeans = new KmeansWorkerState(opts.kernelFactory ?? null, opts.now)

  const done = new Promise<void>((resolve) => {
    control.onClose(() => resolve())
    control.onMessage((m) => {
      handle(m).catch((err: unknown) => {
        const e = err as Error & { code?: string; ranks?: number[] }
        control.send({
          type: 'reply',
          id: m.body.id,
          ok: false,
          error: { code: e.code ?? 'WORKER_FAILURE', message: e.message, ranks: e.ranks ?? [] },
        })
      })
    })
  })

  async function handle(m: ControlMessage): Promise<void> {
    const b = m.body
    const reply = (result: unknown = null, blobs: Uint8Array[] = []) =>
      control.send({ type: 'reply', id: b.id, ok: true, result }, blobs)
    switch (b.type) {
      case 'setup': {
        rank = b.rank as number
        racks = b.racks as string[]
        plane.configure(rank, (r) => racks[r] ?? '', (b.session as number | undefined) ?? 0)
        plane.chunkBytes = b.chunkBytes as number
        plane.setPeers(b.peers as PeerAddress[])
        reply()
        return
      }
      case 'peers':
        for (const [r, a] of (b.peers as PeerAddress[]).entries()) if (r !== rank) plane.updatePeer(r, a)
        racks = b.racks as string[]
        reply()
        return
      case 'chunk-bytes':
        plane.chunkBytes = b.chunkBytes as number
        reply()
        return
      case 'collective': {
        const spec = CollectiveSpec.parse(b.spec)
        reply(await runCollective(plane, b.opId as number, spec, racks, opts.now))
        return
      }
      case 'close-listener':
        // Makes this node refuse data-plane connections (used to exercise alternative chain paths).
        await plane.closeListener()
        reply()
        return
      case 'abort':
        for (const op of b.ops as number[])
          plane.abort(op, new CodebookError('OP_ABORTED', `op ${op} aborted by the driver`))
        reply()
        return
      case 'kmeans-init': {
        const { centroids, k, d } = await initFromFile(
          b as unknown as InitFromFileRequest,
          opts.kernelFactory ?? null,
        )
        reply({ k, d }, [bytesOf(centroids)])
        return
      }
      case 'kmeans-load':
        reply(await kmeans.load(b as unknown as LoadRequest, m.blobs))
        return
      case 'kmeans-iterate': {
        const { result, blobs } = await kmeans.iterate(plane, b as unknown as IterateRequest, m.blobs)
        reply(result, blobs)
        return
      }
      case 'shutdown':
        reply()
        await kmeans.dispose()
        await plane.close()
        control.close()
        return
      default:
        throw new CodebookError('CONTROL_UNKNOWN', `unknown control message '${b.type}'`)
    }
  }

  control.send({
    type: 'register',
    token: opts.token ?? null,
    host,
    port: addr.port,
    rack: opts.rack ?? null,
    pid: process.pid,
  })
  await done
  await plane.close()
}

async function connectWithRetry(addr: PeerAddress, attempts: number): Promise<net.Socket> {
  let delay = 20
  for (let i = 0; ; i++) {
    try {
      return await new Promise<net.Socket>((resolve, reject) => {
        const s = net.createConnection({ host: addr.host, port: addr.port, noDelay: true })
        s.once('connect', () => {
          s.removeListener('error', reject)
          resolve(s)
        })
        s.once('error', reject)
      })
    } catch (err) {
      if (i + 1 >= attempts)
        throw new CodebookError(
          'DRIVER_UNREACHABLE',
          `cannot reach the driver at ${addr.host}:${addr.port}: ${(err as Error).message}`,
        )
      await new Promise((r) => setTimeout(r, delay))
      delay = Math.min(delay * 2, 1000)
    }
  }
}
