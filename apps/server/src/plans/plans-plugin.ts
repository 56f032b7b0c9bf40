import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { createPlanRunner, PLAN_DEFAULTS, type PlanRunner, type PlanRunnerOptions } from './plan-runner.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** Process-mapping plans, one at a time in a child process with a time limit. */
    plans: PlanRunner
  }
}

/** Options of {@link plansPlugin}: the runner's limits (defaults {@link PLAN_DEFAULTS}). */
export type PlansPluginOptions = Partial<PlanRunnerOptions>

async function plansPluginImpl(app: FastifyInstance, options: PlansPluginOptions): Promise<void> {
  const plans = createPlanRunner({ ...PLAN_DEFAULTS, ...options }, app.log)
  app.decorate('plans', plans)
  app.addHook('preClose', () => plans.close())
}

/** Decorates `app.plans`. */
export const plansPlugin = fp(plansPluginImpl, { name: 'codebook-plans', fastify: '5.x' })
