import { z } from 'zod'

/** Records a list answers when the request names no `limit`. */
export const LIST_PAGE_DEFAULT = 100
/** Most records one list answer holds (`limit` above → 400). */
export const LIST_PAGE_MAX = 500

/**
 * Query of the paginated lists (`GET /api/datasets`, `/api/runs`, `/api/topologies`): at most
 * `limit` records in the list's order, after the record `before` (the previous answer's
 * `nextBefore`); no `before` starts at the newest.
 */
export const ListPageQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(LIST_PAGE_MAX)
    .default(LIST_PAGE_DEFAULT)
    .describe(`at most this many records (≤ ${LIST_PAGE_MAX}, default ${LIST_PAGE_DEFAULT})`),
  before: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe("the id of the previous page's last record (its `nextBefore`): continue after it"),
})
export type ListPageQuery = z.infer<typeof ListPageQuery>

/** `nextBefore` of a list answer: the `before` of the next page, null on the last page. */
export const NextBefore = z.string().nullable()
