import { TOPOLOGY_VERSION, type Topology, type TopologyRack } from '@codebook/shared'
import { DatasetFormatError, UsageError } from '../../errors.ts'
import { validateTopology } from '../validate-topology.ts'
import { DEFAULT_SITE, TOPOLOGY_IMPORT_DEFAULTS, type TopologyImportOptions } from './import-options.ts'

/**
 * Reads a Hadoop rack mapping (the table a `net.topology.script` or
 * `net.topology.table.file.name` serves): one `host /dc/rack` or `host /rack` per line, `#`
 * comments and blank lines ignored. One site per `/dc` (in order of first appearance; `/rack`
 * lines go to site `default`), one rack per rack path, one node per line named by its host
 * (`host` = name). A rack is named by its last path component; if two sites use the same one,
 * those racks are named `dc/rack` so names stay unique. Slots, NIC and uplink bandwidths come
 * from `options`.
 */
export function parseHadoopRackMap(text: string, options: TopologyImportOptions = {}): Topology {
  const o = { ...TOPOLOGY_IMPORT_DEFAULTS, ...options }
  const where = (line: number) => ({ ...(o.file ? { file: o.file } : {}), line })
  const at = (line: number) => `${o.file ? `${o.file}:` : ''}line ${line}`
  type RackEntry = { site: string; rack: string; hosts: string[] }
  const sites: string[] = []
  const racks = new Map<string, RackEntry>()
  const hostLine = new Map<string, number>()
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1
    const content = raw.replace(/#.*$/, '').trim()
    if (content === '') return
    const fields = content.split(/\s+/)
    if (fields.length !== 2)
      throw new DatasetFormatError(
        'TOPOLOGY_PARSE',
        `${at(line)}: expected 'host /dc/rack' or 'host /rack', found ${fields.length} fields`,
        where(line),
      )
    const [host, path] = fields as [string, string]
    const parts = path.split('/')
    if (parts[0] !== '' || parts.length < 2 || parts.length > 3 || parts.slice(1).some((p) => p === ''))
      throw new DatasetFormatError(
        'TOPOLOGY_PARSE',
        `${at(line)}: rack path '${path}' is not /rack or /dc/rack`,
        where(line),
      )
    const previous = hostLine.get(host)
    if (previous !== undefined)
      throw new DatasetFormatError(
        'TOPOLOGY_DUPLICATE_NAME',
        `${at(line)}: host '${host}' already mapped on line ${previous}`,
        where(line),
      )
    hostLine.set(host, line)
    const site = parts.length === 3 ? parts[1]! : DEFAULT_SITE
    const rack = parts.at(-1)!
    if (!sites.includes(site)) sites.push(site)
    const key = `${site}/${rack}`
    let entry = racks.get(key)
    if (!entry) {
      entry = { site, rack, hosts: [] }
      racks.set(key, entry)
    }
    entry.hosts.push(host)
  })
  const sitesOfRack = new Map<string, Set<string>>()
  for (const r of racks.values()) sitesOfRack.set(r.rack, (sitesOfRack.get(r.rack) ?? new Set()).add(r.site))
  const topo = {
    version: TOPOLOGY_VERSION,
    name: o.name ?? 'hadoop',
    sites: sites.map((site) => ({
      name: site,
      racks: [...racks.values()]
        .filter((r) => r.site === site)
        .map(
          (r): TopologyRack => ({
            name: sitesOfRack.get(r.rack)!.size > 1 ? `${site}/${r.rack}` : r.rack,
            uplinkGbps: o.uplinkGbps,
            nodes: r.hosts.map((h) => ({ name: h, host: h, slots: o.slots, nicGbps: o.nicGbps })),
          }),
        ),
    })),
  }
  return validateTopology(topo, o.file)
}

/**
 * Writes a Hadoop rack mapping: one `name /site/rack` line per node in topology order
 * (`name /rack` for racks of site `default`, the inverse of the import). Node names are written,
 * not hosts, because generated topologies put every node on host `local` and the import takes
 * names from the first column. Slots and bandwidths are not expressible and are dropped.
 */
export function formatHadoopRackMap(t: Topology): string {
  const lines: string[] = []
  for (const site of t.sites) {
    if (/[\s/#]/.test(site.name))
      throw new UsageError('TOPOLOGY_UNEXPORTABLE', `site name '${site.name}' cannot appear in a rack path`)
    for (const rack of site.racks) {
      // A rack imported as `dc/rack` (same rack name in two sites) goes back to /dc/rack.
      const rackName = rack.name.startsWith(`${site.name}/`)
        ? rack.name.slice(site.name.length + 1)
        : rack.name
      if (/[\s/#]/.test(rackName))
        throw new UsageError('TOPOLOGY_UNEXPORTABLE', `rack name '${rack.name}' cannot appear in a rack path`)
      const path = site.name === DEFAULT_SITE ? `/${rackName}` : `/${site.name}/${rackName}`
      for (const node of rack.nodes) {
        if (/[\s#]/.test(node.name))
          throw new UsageError(
            'TOPOLOGY_UNEXPORTABLE',
            `node name '${node.name}' cannot appear in a rack map`,
          )
        lines.push(`${node.name} ${path}`)
      }
    }
  }
  return `${lines.join('\n')}\n`
}
