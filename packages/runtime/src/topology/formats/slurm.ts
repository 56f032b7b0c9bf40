import { TOPOLOGY_VERSION, type Topology } from '@codebook/shared'
import { CodebookError, DatasetFormatError, UsageError } from '../../errors.ts'
import { validateTopology } from '../validate-topology.ts'
import { compressHostlist, expandHostlist } from './hostlist.ts'
import { DEFAULT_SITE, TOPOLOGY_IMPORT_DEFAULTS, type TopologyImportOptions } from './import-options.ts'

interface Switch {
  name: string
  line: number
  nodes?: string[]
  switches?: string[]
}

/**
 * Reads a Slurm `topology.conf` (topology/tree): `SwitchName=s0 Nodes=tux[0-3]` lines are leaf
 * switches (→ racks, nodes in hostlist order), `SwitchName=s1 Switches=s0,s[2-3]` lines upper
 * switches. Each top-level upper switch becomes a site holding the leaves of its tree
 * (depth-first, children in listed order; intermediate levels are flattened); leaf switches
 * under no upper switch go to site `default`. Keys are case-insensitive; `LinkSpeed=` is
 * accepted and ignored (Slurm itself documents its units as arbitrary and the value as unused).
 * Not supported: `BlockName=` (topology/block), line continuations, a switch with both
 * `Nodes=` and `Switches=`. Slots and bandwidths come from `options`.
 */
export function parseSlurmTopology(text: string, options: TopologyImportOptions = {}): Topology {
  const o = { ...TOPOLOGY_IMPORT_DEFAULTS, ...options }
  const fail = (code: string, line: number, msg: string): never => {
    throw new DatasetFormatError(code, `${o.file ? `${o.file}:` : ''}line ${line}: ${msg}`, {
      ...(o.file ? { file: o.file } : {}),
      line,
    })
  }
  const expand = (list: string, line: number) => {
    try {
      return expandHostlist(list)
    } catch (err) {
      if (err instanceof CodebookError) return fail(err.code, line, err.message)
      throw err
    }
  }
  const switches = new Map<string, Switch>()
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = i + 1
    const content = raw.replace(/#.*$/, '').trim()
    if (content === '') continue
    const sw: Partial<Switch> = { line }
    for (const token of content.split(/\s+/)) {
      const eq = token.indexOf('=')
      if (eq <= 0) fail('TOPOLOGY_PARSE', line, `expected Key=Value, found '${token}'`)
      const key = token.slice(0, eq).toLowerCase()
      const value = token.slice(eq + 1)
      if (key === 'switchname') {
        const names = expand(value, line)
        if (names.length !== 1)
          fail('TOPOLOGY_PARSE', line, `SwitchName must name one switch, got '${value}'`)
        sw.name = names[0]!
      } else if (key === 'nodes') sw.nodes = expand(value, line)
      else if (key === 'switches') sw.switches = expand(value, line)
      else if (key !== 'linkspeed')
        fail(
          'TOPOLOGY_PARSE',
          line,
          `unsupported key '${token.slice(0, eq)}' (SwitchName, Nodes, Switches, LinkSpeed)`,
        )
    }
    if (sw.name === undefined) {
      fail('TOPOLOGY_PARSE', line, 'missing SwitchName=')
      continue
    }
    if (sw.nodes && sw.switches)
      fail('TOPOLOGY_PARSE', line, `switch '${sw.name}' has both Nodes= and Switches=`)
    if (!sw.nodes?.length && !sw.switches?.length)
      fail('TOPOLOGY_PARSE', line, `switch '${sw.name}' has neither Nodes= nor Switches=`)
    const previous = switches.get(sw.name)
    if (previous)
      fail('TOPOLOGY_DUPLICATE_NAME', line, `switch '${sw.name}' already defined on line ${previous.line}`)
    switches.set(sw.name, sw as Switch)
  }

  const parent = new Map<string, string>()
  for (const sw of switches.values())
    for (const child of sw.switches ?? []) {
      if (!switches.has(child))
        fail('TOPOLOGY_PARSE', sw.line, `switch '${sw.name}' lists unknown switch '${child}'`)
      const other = parent.get(child)
      if (other !== undefined)
        fail('TOPOLOGY_PARSE', sw.line, `switch '${child}' is under both '${other}' and '${sw.name}'`)
      parent.set(child, sw.name)
    }
  // Every switch has at most one parent, so the only way not to be a tree is a cycle.
  for (const sw of switches.values()) {
    let at = parent.get(sw.name)
    for (let steps = 0; at !== undefined && steps < switches.size; steps++) {
      if (at === sw.name) fail('TOPOLOGY_PARSE', sw.line, `switch '${sw.name}' is part of a cycle`)
      at = parent.get(at)
    }
  }
  const nodeLine = new Map<string, number>()
  for (const sw of switches.values())
    for (const n of sw.nodes ?? []) {
      const previous = nodeLine.get(n)
      if (previous !== undefined)
        fail('TOPOLOGY_DUPLICATE_NAME', sw.line, `node '${n}' already under a switch on line ${previous}`)
      nodeLine.set(n, sw.line)
    }

  const rack = (sw: Switch) => ({
    name: sw.name,
    uplinkGbps: o.uplinkGbps,
    nodes: sw.nodes!.map((n) => ({ name: n, host: n, slots: o.slots, nicGbps: o.nicGbps })),
  })
  const leavesUnder = (root: Switch): Switch[] => {
    const out: Switch[] = []
    const visit = (sw: Switch) => {
      if (sw.nodes) out.push(sw)
      for (const c of sw.switches ?? []) visit(switches.get(c)!)
    }
    visit(root)
    return out
  }
  const sites: { name: string; racks: ReturnType<typeof rack>[] }[] = []
  let defaultSite: (typeof sites)[number] | undefined
  for (const sw of switches.values()) {
    if (parent.has(sw.name)) continue
    if (sw.nodes) {
      if (!defaultSite) {
        defaultSite = { name: DEFAULT_SITE, racks: [] }
        sites.push(defaultSite)
      }
      defaultSite.racks.push(rack(sw))
    } else sites.push({ name: sw.name, racks: leavesUnder(sw).map(rack) })
  }
  return validateTopology({ version: TOPOLOGY_VERSION, name: o.name ?? 'slurm', sites }, o.file)
}

/**
 * Writes a Slurm `topology.conf`: one `SwitchName=<rack> Nodes=<hostlist>` line per rack (node
 * names compressed into a hostlist), then per site one `SwitchName=<site> Switches=<racks>`
 * line, except for site `default`, whose racks stay top-level leaves (the inverse of the
 * import). Slots and bandwidths are not expressible and are dropped.
 */
export function formatSlurmTopology(t: Topology): string {
  const lines: string[] = []
  const switchNames = new Set<string>()
  const claim = (name: string) => {
    if (switchNames.has(name))
      throw new UsageError(
        'TOPOLOGY_UNEXPORTABLE',
        `'${name}' names both a site and a rack; Slurm switches share one namespace`,
      )
    switchNames.add(name)
  }
  for (const site of t.sites)
    for (const rack of site.racks) {
      claim(rack.name)
      lines.push(
        `SwitchName=${compressHostlist([rack.name])} Nodes=${compressHostlist(rack.nodes.map((n) => n.name))}`,
      )
    }
  for (const site of t.sites) {
    if (site.name === DEFAULT_SITE) continue
    claim(site.name)
    lines.push(
      `SwitchName=${compressHostlist([site.name])} Switches=${compressHostlist(site.racks.map((r) => r.name))}`,
    )
  }
  return `${lines.join('\n')}\n`
}
