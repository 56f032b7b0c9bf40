import type { ListPageQuery, TopologySummary, TopologyVersionSummary } from '@codebook/shared'
import { and, desc, eq, type SQL, sql } from 'drizzle-orm'
import type { Database } from '../db/db-plugin.ts'
import { type ListPage, readPage } from '../db/list-page.ts'
import { meta, topologies, topologyVersions } from '../db/schema.ts'

/** One stored version as read back: the body is the JSON as saved (validated on write). */
export interface StoredTopologyVersion {
  id: string
  name: string
  version: number
  latestVersion: number
  body: unknown
  message: string | null
  createdAt: string
}

/**
 * Topology persistence over drizzle (portable SQL: PGlite and PostgreSQL alike). Versions are
 * immutable rows; `topologies.latest_version` is the counter a save increments.
 */
export interface TopologyRepo {
  /** Inserts a topology with its version 1, in one transaction. */
  create(id: string, name: string, body: unknown, message: string | null): Promise<StoredTopologyVersion>
  /**
   * Appends version latest + 1. The increment is one UPDATE … RETURNING inside the transaction
   * that inserts the version, so concurrent saves serialise on the row lock and never share a
   * number (the unique (topology_id, version) constraint backs this up).
   * @returns undefined when the topology does not exist.
   */
  appendVersion(
    id: string,
    name: string,
    body: unknown,
    message: string | null,
  ): Promise<StoredTopologyVersion | undefined>
  /** A version (the latest when absent); undefined when the topology or version does not exist. */
  get(id: string, version?: number): Promise<StoredTopologyVersion | undefined>
  /** Newest updated first, with counts of the latest version computed in SQL (bodies stay in the DB). */
  list(page: ListPageQuery): Promise<ListPage<TopologySummary>>
  /** Newest version first; undefined when the topology does not exist. */
  versions(id: string): Promise<TopologyVersionSummary[] | undefined>
  /** Deletes the topology and (cascade) its versions. */
  delete(id: string): Promise<boolean>
  getMeta(key: string): Promise<unknown>
  setMeta(key: string, value: unknown): Promise<void>
}

const iso = (d: Date) => d.toISOString()

/** Creates the {@link TopologyRepo} over a database. */
export function createTopologyRepo(db: Database): TopologyRepo {
  async function get(id: string, version?: number): Promise<StoredTopologyVersion | undefined> {
    const [row] = await db
      .select({
        id: topologies.id,
        name: topologies.name,
        latestVersion: topologies.latestVersion,
        version: topologyVersions.version,
        body: topologyVersions.body,
        message: topologyVersions.message,
        createdAt: topologyVersions.createdAt,
      })
      .from(topologies)
      .innerJoin(topologyVersions, eq(topologyVersions.topologyId, topologies.id))
      .where(
        and(
          eq(topologies.id, id),
          version === undefined
            ? eq(topologyVersions.version, topologies.latestVersion)
            : eq(topologyVersions.version, version),
        ),
      )
    return row && { ...row, createdAt: iso(row.createdAt) }
  }

  return {
    async create(id, name, body, message) {
      const row = await db.transaction(async (tx) => {
        const [t] = await tx.insert(topologies).values({ id, name, latestVersion: 1 }).returning()
        const [v] = await tx
          .insert(topologyVersions)
          .values({ topologyId: id, version: 1, body, message })
          .returning()
        return { t: t!, v: v! }
      })
      return {
        id,
        name: row.t.name,
        version: 1,
        latestVersion: 1,
        body: row.v.body,
        message: row.v.message,
        createdAt: iso(row.v.createdAt),
      }
    },

    async appendVersion(id, name, body, message) {
      return db.transaction(async (tx) => {
        const [t] = await tx
          .update(topologies)
          .set({
            latestVersion: sql`${topologies.latestVersion} + 1`,
            name,
            updatedAt: sql`now()`,
          })
          .where(eq(topologies.id, id))
          .returning({ latestVersion: topologies.latestVersion, name: topologies.name })
        if (!t) return undefined
        const [v] = await tx
          .insert(topologyVersions)
          .values({ topologyId: id, version: t.latestVersion, body, message })
          .returning()
        return {
          id,
          name: t.name,
          version: t.latestVersion,
          latestVersion: t.latestVersion,
          body: v!.body,
          message: v!.message,
          createdAt: iso(v!.createdAt),
        }
      })
    },

    get,

    async list(page) {
      const body = topologyVersions.body
      const read = (where: SQL | undefined, limit: number) =>
        db
          .select({
            id: topologies.id,
            name: topologies.name,
            latestVersion: topologies.latestVersion,
            createdAt: topologies.createdAt,
            updatedAt: topologies.updatedAt,
            sites: sql<number>`jsonb_array_length(${body}->'sites')`,
            racks: sql<number>`(select count(*) from jsonb_array_elements(${body}->'sites') s, jsonb_array_elements(s->'racks') r)`,
            nodes: sql<number>`(select count(*) from jsonb_array_elements(${body}->'sites') s, jsonb_array_elements(s->'racks') r, jsonb_array_elements(r->'nodes') n)`,
          })
          .from(topologies)
          .innerJoin(
            topologyVersions,
            and(
              eq(topologyVersions.topologyId, topologies.id),
              eq(topologyVersions.version, topologies.latestVersion),
            ),
          )
          .where(where)
          .orderBy(desc(topologies.updatedAt), desc(topologies.id))
          .limit(limit)
      const listed = await readPage(
        db,
        { table: topologies, order: topologies.updatedAt, id: topologies.id },
        page,
        read,
      )
      // count(*) is a bigint: node-postgres hands it over as a string.
      const items = listed.items.map((r) => ({
        ...r,
        sites: Number(r.sites),
        racks: Number(r.racks),
        nodes: Number(r.nodes),
        createdAt: iso(r.createdAt),
        updatedAt: iso(r.updatedAt),
      }))
      return { ...listed, items }
    },

    async versions(id) {
      const [t] = await db.select({ id: topologies.id }).from(topologies).where(eq(topologies.id, id))
      if (!t) return undefined
      const rows = await db
        .select({
          version: topologyVersions.version,
          message: topologyVersions.message,
          createdAt: topologyVersions.createdAt,
        })
        .from(topologyVersions)
        .where(eq(topologyVersions.topologyId, id))
        .orderBy(desc(topologyVersions.version))
      return rows.map((r) => ({ ...r, createdAt: iso(r.createdAt) }))
    },

    async delete(id) {
      const rows = await db.delete(topologies).where(eq(topologies.id, id)).returning({ id: topologies.id })
      return rows.length > 0
    },

    async getMeta(key) {
      const [row] = await db.select().from(meta).where(eq(meta.key, key))
      return row?.value
    },

    async setMeta(key, value) {
      await db.insert(meta).values({ key, value }).onConflictDoUpdate({ target: meta.key, set: { value } })
    },
  }
}
