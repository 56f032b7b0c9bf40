import type { ListPageQuery } from '@codebook/shared'
import { eq, type SQL, sql } from 'drizzle-orm'
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core'
import { ApiError } from '../http/api-error.ts'
import type { Database } from './db-plugin.ts'

/** One page of a list: the records and the `before` of the next page (null on the last). */
export interface ListPage<T> {
  items: T[]
  nextBefore: string | null
}

/** Where a list's order comes from: rows of `table` by `(order desc, id desc)`, `order` indexed. */
export interface ListOrder {
  table: PgTable
  order: PgColumn
  id: PgColumn
}

/**
 * Reads one page of a list ordered by `(order desc, id desc)`. `read` runs the list's own query
 * with `where` (undefined on the first page) and `limit` (one more than the page, to know whether
 * another follows). The cursor compares with the row values of the record `before` in a subquery,
 * so it is exact to the database's precision (a timestamp through JavaScript would lose its
 * microseconds); the `order` column's index serves it.
 * @throws ApiError 400 `INVALID_CURSOR` when `before` names no record (deleted since, or never one).
 */
export async function readPage<T extends { id: string }>(
  db: Database,
  list: ListOrder,
  page: ListPageQuery,
  read: (where: SQL | undefined, limit: number) => Promise<T[]>,
): Promise<ListPage<T>> {
  const { table, order, id } = list
  const where =
    page.before === undefined
      ? undefined
      : sql`(${order}, ${id}) < (select c.${sql.identifier(order.name)}, c.${sql.identifier(id.name)} from ${table} c where c.${sql.identifier(id.name)} = ${page.before})`
  const rows = await read(where, page.limit + 1)
  if (rows.length === 0 && page.before !== undefined) {
    const [found] = await db.select({ id }).from(table).where(eq(id, page.before)).limit(1)
    if (found === undefined)
      throw new ApiError(
        400,
        'INVALID_CURSOR',
        `before: no record ${page.before} to continue after (deleted meanwhile?); read the list again from the start`,
      )
  }
  const items = rows.slice(0, page.limit)
  return { items, nextBefore: rows.length > page.limit ? items[items.length - 1]!.id : null }
}
