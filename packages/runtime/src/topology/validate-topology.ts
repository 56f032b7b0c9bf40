import { Topology } from '@codebook/shared'
import { CodebookError } from '../errors.ts'

/**
 * A topology that failed the schema: `code` says which rule (stable, see
 * {@link topologyIssueCode}), `path` where (e.g. `sites.0.racks.1.nodes`), `issues` how many
 * rules failed in all (the message names the first).
 */
export class TopologyValidationError extends CodebookError {
  readonly path: string
  readonly issues: number

  constructor(code: string, path: string, message: string, issues: number) {
    super(code, `${path || '(root)'}: ${message}${issues > 1 ? ` (and ${issues - 1} more issues)` : ''}`)
    this.path = path
    this.issues = issues
  }
}

/** What {@link topologyIssueCode} reads from one zod issue. */
export interface TopologyIssue {
  path: readonly PropertyKey[]
  message: string
}

const BANDWIDTH_KEYS = new Set(['nicGbps', 'uplinkGbps', 'bandwidthGbps'])

/**
 * The stable code of one schema issue. The schema's refinements have stable messages
 * (packages/shared/src/topology.ts), so the mapping keys on message and path:
 * `TOPOLOGY_DUPLICATE_NAME`, `TOPOLOGY_NO_SITES`, `TOPOLOGY_EMPTY_SITE`, `TOPOLOGY_EMPTY_RACK`,
 * `TOPOLOGY_BAD_MATRIX` (site-link matrix not M × M), `TOPOLOGY_BAD_BANDWIDTH` (a bandwidth
 * that is not a positive number), `TOPOLOGY_BAD_LATENCY`, `TOPOLOGY_BAD_VERSION`, and
 * `TOPOLOGY_INVALID` for anything else (wrong types, missing fields).
 */
export function topologyIssueCode(issue: TopologyIssue): string {
  const m = issue.message
  const last = issue.path.at(-1)
  const inSiteLinks = issue.path[0] === 'siteLinks'
  if (/^duplicate \w+ name/.test(m)) return 'TOPOLOGY_DUPLICATE_NAME'
  if (issue.path.length === 1 && issue.path[0] === 'sites' && /at least one site/.test(m))
    return 'TOPOLOGY_NO_SITES'
  if (/has no racks$/.test(m)) return 'TOPOLOGY_EMPTY_SITE'
  if (/has no nodes$/.test(m)) return 'TOPOLOGY_EMPTY_RACK'
  if (inSiteLinks && m.includes(' × ')) return 'TOPOLOGY_BAD_MATRIX'
  if (inSiteLinks && issue.path[1] === 'bandwidthGbps' && /positive/.test(m)) return 'TOPOLOGY_BAD_BANDWIDTH'
  if (inSiteLinks && issue.path[1] === 'latencyMs' && /non-negative/.test(m)) return 'TOPOLOGY_BAD_LATENCY'
  if (typeof last === 'string' && BANDWIDTH_KEYS.has(last)) return 'TOPOLOGY_BAD_BANDWIDTH'
  if (last === 'latencyUs') return 'TOPOLOGY_BAD_LATENCY'
  if (last === 'version') return 'TOPOLOGY_BAD_VERSION'
  return 'TOPOLOGY_INVALID'
}

/**
 * Validates parsed JSON against the topology schema. On failure throws a
 * {@link TopologyValidationError} carrying the first issue's code, path and message (`where`,
 * e.g. a file name, prefixes the message).
 */
export function validateTopology(json: unknown, where?: string): Topology {
  const r = Topology.safeParse(json)
  if (r.success) return r.data
  const first = r.error.issues[0]!
  const path = first.path.map(String).join('.')
  const err = new TopologyValidationError(
    topologyIssueCode(first),
    path,
    first.message,
    r.error.issues.length,
  )
  if (where) err.message = `${where}: ${err.message}`
  throw err
}
