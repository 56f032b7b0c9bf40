import { defineApplication } from '../framework/application.ts'
import { bytesOf } from '../framework/control-channel.ts'
import { initFromFile } from './init/compute-init.ts'
import type { KernelFactory } from './kernel-registry.ts'
import { KmeansMessage } from './kmeans-messages.ts'
import { KmeansWorkerState } from './kmeans-worker.ts'

/**
 * K-means as an application of the Map-Collective framework: `init` computes a run's initial
 * centroids from its data file (on one worker, off the driver's thread), `load` reads the worker's partition
 * into map tasks, `iterate` runs one iteration's broadcast → map → shuffle → reduce → combine
 * over the data plane. `kernelFactory` replaces the registry's kernels in-process (tests).
 */
export function createKmeansApplication(kernelFactory: KernelFactory | null = null) {
  return defineApplication({
    name: 'kmeans',
    messages: KmeansMessage,
    createState: (ctx) => new KmeansWorkerState(kernelFactory, ctx.now),
    async handle(state, message, blobs, ctx) {
      switch (message.type) {
        case 'init': {
          const { centroids, k, d } = await initFromFile(message, kernelFactory)
          return { result: { k, d }, blobs: [bytesOf(centroids)] }
        }
        case 'load':
          return { result: await state.load(message, blobs) }
        case 'iterate':
          return state.iterate(ctx.plane, message, blobs)
      }
    },
    dispose: (state) => state.dispose(),
  })
}

/** The K-means application with the registry's kernels, as worker processes serve it. */
export const kmeansApplication = createKmeansApplication()
