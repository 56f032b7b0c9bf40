import { writeNpy } from '../formats/npy/npy-writer.ts'
import { defineApplication } from '../framework/application.ts'
import { initFromFile } from './init/compute-init.ts'
import type { KernelFactory } from './kernel-registry.ts'
import { KmeansMessage } from './kmeans-messages.ts'
import { KmeansWorkerState } from './kmeans-worker.ts'

/**
 * K-means as an application of the Map-Collective framework: `init` computes a run's initial
 * centroids from its data file (on one worker, off the driver's thread, into checkpoint 0), `load` reads the worker's partition into map tasks, `train` runs the iterations SPMD
 * over the data plane (broadcast → map → shuffle → reduce → combine and the root's update),
 * paced by the driver's `acknowledge` and stopped by its `halt`. `kernelFactory` replaces the registry's kernels in-process (tests).
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
          await writeNpy(message.out, centroids, k, d)
          return { result: { k, d } }
        }
        case 'load':
          return { result: await state.load(message, blobs) }
        case 'train':
          return { result: await state.train(ctx, message) }
        case 'acknowledge':
          state.acknowledge(message.opBase, message.iteration)
          return {}
        case 'halt':
          state.halt(message.opBase)
          return {}
      }
    },
    dispose: (state) => state.dispose(),
  })
}

/** The K-means application with the registry's kernels, as worker processes serve it. */
export const kmeansApplication = createKmeansApplication()
