import { z } from 'zod'

/**
 * What an id the API takes (a route's `:id`, a body's `datasetId`, a socket's join) may look like:
 * 1–64 characters of `A–Z a–z 0–9 _ -`. The server makes UUIDs (36 characters); the wider rule
 * keeps short ids of older records and seeds. Anything else (a NUL, a slash or dot of a path
 * spelling, spaces, other scripts, a megabyte of text) is refused before any query.
 */
export const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/

/** The message of a refused id; the server answers 400 `INVALID_ID` when every problem is this one. */
export const INVALID_ID_MESSAGE = 'not an id: 1 to 64 characters of A-Z, a-z, 0-9, _ and -'

/** An entity id ({@link ID_PATTERN}). */
export const EntityId = z.string().regex(ID_PATTERN, { message: INVALID_ID_MESSAGE })

/** Params of every `/…/:id` route. */
export const IdParams = z.object({ id: EntityId })
export type IdParams = z.infer<typeof IdParams>
