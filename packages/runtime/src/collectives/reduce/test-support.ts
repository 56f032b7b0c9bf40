import type { Combiner } from '../regroup/combiner.ts'
import { testCombiners } from '../regroup/test-support/order-combiners.ts'
import { reductionApplication } from './reduce-app.ts'

/** The reduction application over the regroup tests' combiners (served by their worker entry). */
export const reductionCheckApplication = reductionApplication(
  'reduce-check',
  testCombiners as unknown as Record<string, Combiner<unknown>>,
)
