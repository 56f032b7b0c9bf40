import { describe, expect, it } from 'vitest'
import { main } from '../cli/main.ts'
import { generateTopology } from '../topology/generate.ts'
import { labSpecFromTopology } from './lab-from-topology.ts'
import { planLab } from './lab-plan.ts'

const spec = { id: 2, racks: 3, hostsPerRack: 4, nodeMbps: 100, uplinkMbps: 200 }

describe('planLab (no root needed)', () => {
  it('gives every host its own namespace and an address inside the lab’s block, racks as /24s', () => {
    const plan = planLab(spec)
    expect(plan.block).toBe('10.213.64.0/19')
    expect(plan.hosts).toHaveLength(12)
    expect(new Set(plan.hosts.map((h) => h.netns)).size).toBe(12)
    expect(new Set(plan.hosts.map((h) => h.address)).size).toBe(12)
    for (const [i, h] of plan.hosts.entries()) {
      const rack = Math.floor(i / 4)
      expect(h.rack).toBe(`rack-${rack}`)
      expect(h.address).toBe(`10.213.${64 + rack}.${(i % 4) + 1}`)
      expect(h.netns.startsWith(plan.prefix)).toBe(true)
    }
    // Every namespace and root-namespace link the commands create carries the prefix (cleanup finds it by name).
    const created = plan.commands.filter((c) => c[1] === 'netns' && c[2] === 'add').map((c) => c[3]!)
    expect(created).toHaveLength(1 + 3 + 12)
    for (const n of created) expect(n.startsWith('cb2-')).toBe(true)
    const rootLinks = plan.commands.filter((c) => c[0] === 'ip' && c[1] === 'link' && c[2] === 'add')
    expect(rootLinks.map((c) => c[3])).toEqual(['cb2-host'])
  })

  it('shapes both directions of every host link and uplink, and adds the delay once per hop', () => {
    const plan = planLab({ ...spec, delayMs: 5, tcpBufferKb: 8 })
    const htbClasses = [...plan.commands, ...plan.hostCommands].filter(
      (c) => c[0] === 'tc' && c[3] === 'class',
    )
    expect(htbClasses).toHaveLength(2 * 12 + 2 * 3)
    expect(htbClasses.filter((c) => c.includes('100000kbit'))).toHaveLength(24)
    expect(htbClasses.filter((c) => c.includes('200000kbit'))).toHaveLength(6)
    // The delay line sits on each host's own link (24 TAPs, host end first): one delay per hop.
    expect(plan.delayLine).toEqual({ delayMs: 5, taps: plan.hosts.flatMap((_, i) => [`a${i}`, `b${i}`]) })
    expect(planLab(spec).delayLine).toBeNull()
    const buffers = plan.hostCommands.filter((c) => c.some((a) => a.startsWith('net.ipv4.tcp_')))
    expect(buffers).toHaveLength(24)
    expect(buffers[0]!.at(-1)).toBe('net.ipv4.tcp_rmem=4096 8192 8192')
    // A switch-port buffer: one bfifo per shaped link direction when asked for.
    const queued = planLab({ ...spec, queueKb: 256 })
    const fifos = [...queued.commands, ...queued.hostCommands].filter((c) => c.includes('bfifo'))
    expect(fifos).toHaveLength(2 * 12 + 2 * 3)
    expect(fifos[0]!.at(-1)).toBe('256kb')
    expect(plan.commands.some((c) => c.includes('bfifo'))).toBe(false)
  })

  it('refuses a bad spec with a coded error naming the field', () => {
    expect(() => planLab({ ...spec, id: 8 })).toThrow(/lab id/)
    expect(() => planLab({ ...spec, racks: 31 })).toThrow(/racks/)
    expect(() => planLab({ ...spec, uplinkMbps: 0 })).toThrow(/uplink rate/)
    try {
      planLab({ ...spec, tcpBufferKb: 2 })
      expect.unreachable()
    } catch (err) {
      expect((err as { code: string }).code).toBe('LAB_BAD_SPEC')
    }
  })
})

describe('labSpecFromTopology', () => {
  it('takes racks, hosts and rates from a topology, scaled; refuses unequal racks', () => {
    const t = generateTopology({ racks: 3, nodesPerRack: 4, nodeGbps: 1, uplinkGbps: 2, slots: 1 })
    expect(labSpecFromTopology(t, 0.1, { id: 0 })).toEqual({
      id: 0,
      racks: 3,
      hostsPerRack: 4,
      nodeMbps: 100,
      uplinkMbps: 200,
    })
    t.sites[0]!.racks[1]!.nodes.pop()
    expect(() => labSpecFromTopology(t, 1, { id: 0 })).toThrow(/rack sizes 4, 3/)
  })
})

describe('codebook lab: bad input exits 2 with a coded message, before touching the network', () => {
  it('refuses a lab id out of range and an unknown algorithm', async () => {
    const err: string[] = []
    const write = process.stderr.write
    process.stderr.write = ((s: string) => err.push(s) > 0) as typeof process.stderr.write
    try {
      expect(await main(['lab', 'up', '--lab', '9'])).toBe(2)
      expect(await main(['lab', 'bench', 'broadcast', '--algorithms', 'chain,ring'])).toBe(2)
      expect(await main(['lab', 'bench', 'mapping', '--lab', '2', '--random-draws', '0'])).toBe(2)
      expect(await main(['lab', 'bench', 'mapping', '--lab', '2', '--map-gflops', '-1'])).toBe(2)
    } finally {
      process.stderr.write = write
    }
    expect(err.join('')).toMatch(/LAB_BAD_SPEC: lab id must be an integer in \[0, 7\], got 9/)
    expect(err.join('')).toMatch(/'ring' is not one of simple, mst, bucket, chain, chain-random/)
    expect(err.join('')).toMatch(/--random-draws/)
    expect(err.join('')).toMatch(/--map-gflops/)
  })
})
