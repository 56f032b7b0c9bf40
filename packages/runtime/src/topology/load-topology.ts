import { readFile } from 'node:fs/promises'
import { Topology, topologyNodes } from '@codebook/shared'
import { UsageError } from '../errors.ts'

/** Reads and validates a topology JSON file; errors name the file and every failed rule. */
export async function readTopology(file: string): Promise<Topology> {
  let json: unknown
  try {
    json = JSON.parse(await readFile(file, 'utf8'))
  } catch (err) {
    throw new UsageError('TOPOLOGY_UNREADABLE', `${file}: ${(err as Error).message}`)
  }
  const r = Topology.safeParse(json)
  if (!r.success) {
    const issues = r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')
    throw new UsageError('TOPOLOGY_INVALID', `${file}: ${issues}`)
  }
  return r.data
}

/**
 * Rack of each of p workers: worker i ↔ the i-th node in topology order. Without a topology all
 * workers share one rack.
 */
export function workerRacks(t: Topology | null, p: number): string[] {
  if (!t) return Array.from({ length: p }, () => 'rack-0')
  const nodes = topologyNodes(t)
  if (nodes.length < p)
    throw new UsageError(
      'TOPOLOGY_TOO_SMALL',
      `topology '${t.name}' has ${nodes.length} nodes, ${p} workers were asked for`,
    )
  return nodes.slice(0, p).map((n) => n.rack)
}
