import { z } from 'zod'

/** The body of every error answer: a stable code, a message that says what to do, and the request id. */
export const ErrorBody = z.object({
  code: z.string().describe('Stable, machine-readable error code, e.g. HOG_BAD_ROW'),
  message: z.string(),
  reqId: z.string().optional(),
})
export type ErrorBody = z.infer<typeof ErrorBody>
