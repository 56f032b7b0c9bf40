import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import {
  createSimulationRunner,
  SIMULATION_DEFAULTS,
  type SimulationRunner,
  type SimulationRunnerOptions,
} from './simulation-runner.ts'
import { createTopologyRepo } from './topology-repo.ts'
import { seedDemoTopology } from './topology-seed.ts'
import { createTopologyService, type TopologyService } from './topology-service.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** Versioned topologies; `getVersion(id, version?)` gives a run the topology to place workers on. */
    topologies: TopologyService
    /** What-if simulations, run one at a time in a separate process with a time limit. */
    simulations: SimulationRunner
  }
}

/** Options of {@link topologiesPlugin}. */
export interface TopologiesPluginOptions {
  /** Create the demo topology "papers-150" on the first start of a home. */
  seedDemo: boolean
  /** Limits of the simulation process (defaults {@link SIMULATION_DEFAULTS}). */
  simulation?: Partial<SimulationRunnerOptions>
}

async function topologiesPluginImpl(app: FastifyInstance, options: TopologiesPluginOptions): Promise<void> {
  const repo = createTopologyRepo(app.db)
  const service = createTopologyService(repo)
  app.decorate('topologies', service)
  const simulations = createSimulationRunner({ ...SIMULATION_DEFAULTS, ...options.simulation }, app.log)
  app.decorate('simulations', simulations)
  app.addHook('preClose', () => simulations.close())
  // A few rows: done before listening, so the first page load already lists it.
  if (options.seedDemo)
    await seedDemoTopology({ repo, service, log: app.log }).catch((err) =>
      app.log.error({ err }, 'demo topology could not be seeded'),
    )
}

/** Decorates `app.topologies` and `app.simulations`; seeds the demo topology once. */
export const topologiesPlugin = fp(topologiesPluginImpl, {
  name: 'codebook-topologies',
  fastify: '5.x',
  dependencies: ['codebook-db'],
})
