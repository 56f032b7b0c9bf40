import { z } from 'zod'

export const Health = z.object({
  status: z.literal('ok'),
  version: z.string(),
  database: z.enum(['pglite', 'postgres']),
  uptimeSeconds: z.number(),
})
export type Health = z.infer<typeof Health>
