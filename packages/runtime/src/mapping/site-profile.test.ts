import { describe, expect, it } from 'vitest'
import {
  AZURE_REGIONS,
  azureThreeRegions,
  builtInProfile,
  builtInProfiles,
  EC2_REGIONS,
  ec2FourRegions,
  greatCircleKm,
  type PaperMeasurements,
  type SiteProfile,
  sphereCoordinates,
  validateProfile,
} from './site-profile.ts'

// Zhou & He (SC '17), Tables 1–3, as printed: bandwidth in MB/s, latency in the tables' unit.
// Unit conversions pinned here: MB/s × 10⁶ = bytes/s; Table 2's latencies read as seconds one way,
// Table 3's as milliseconds one way (docs/mapping.md, "Built-in site profiles").
const MB = 1e6

const at = (p: SiteProfile, from: string, to: string) => {
  const s = p.sites.indexOf(from)
  const t = p.sites.indexOf(to)
  expect(s, from).toBeGreaterThanOrEqual(0)
  expect(t, to).toBeGreaterThanOrEqual(0)
  return { bandwidth: p.bandwidth[s]![t]!, latency: p.latency[s]![t]! }
}

/** Both directions of a pair carry the same figures. */
const expectLink = (p: SiteProfile, a: string, b: string, mbPerS: number, latencyS: number) => {
  for (const [s, t] of [
    [a, b],
    [b, a],
  ] as const) {
    const l = at(p, s, t)
    expect(l.bandwidth, `${s} → ${t} bandwidth`).toBeCloseTo(mbPerS * MB, 3)
    expect(l.latency, `${s} → ${t} latency`).toBeCloseTo(latencyS, 12)
  }
}

describe('ec2-4 (Tables 1 and 2, c3.8xlarge)', () => {
  const p = ec2FourRegions()

  it('is valid, with the four regions of the paper’s EC2 runs and no fixed node counts', () => {
    validateProfile(p)
    expect(p.name).toBe('ec2-4')
    expect(p.sites).toEqual(['us-east', 'us-west', 'singapore', 'ireland'])
    expect(p.nodes).toBeUndefined() // 64 processes spread evenly: 16 per region, as in the paper
  })

  it('Table 2: US East to US West 21 MB/s and 0.16, Ireland 19 and 0.17, Singapore 6.6 and 0.35 (s, one way)', () => {
    expectLink(p, 'us-east', 'us-west', 21, 0.16)
    expectLink(p, 'us-east', 'ireland', 19, 0.17)
    expectLink(p, 'us-east', 'singapore', 6.6, 0.35)
  })

  it('Table 1, row c3.8xlarge: 148 MB/s within US East, 204 within Singapore, 6.6 between them', () => {
    expect(at(p, 'us-east', 'us-east').bandwidth).toBeCloseTo(148 * MB, 3)
    expect(at(p, 'singapore', 'singapore').bandwidth).toBeCloseTo(204 * MB, 3)
    expect(at(p, 'us-east', 'singapore').bandwidth).toBeCloseTo(6.6 * MB, 3)
  })

  it('rules: unmeasured regions take the lowest measured intra-region bandwidth; every intra latency is Table 3’s 0.82 ms', () => {
    expect(at(p, 'us-west', 'us-west').bandwidth).toBeCloseTo(148 * MB, 3)
    expect(at(p, 'ireland', 'ireland').bandwidth).toBeCloseTo(148 * MB, 3)
    for (const s of p.sites) expect(at(p, s, s).latency).toBeCloseTo(0.82e-3, 12)
  })

  it('rule: an unmeasured pair takes the measured US East pair nearest in great-circle distance', () => {
    expectLink(p, 'us-west', 'ireland', 19, 0.17) // 8,187 km: nearest US East ↔ Ireland (5,465 km)
    expectLink(p, 'us-west', 'singapore', 6.6, 0.35) // 13,649 km: nearest US East ↔ Singapore (15,543 km)
    expectLink(p, 'singapore', 'ireland', 6.6, 0.35) // 11,207 km: nearest US East ↔ Singapore
  })

  it('keeps the regions’ latitude and longitude as unit-sphere coordinates', () => {
    expect(p.coordinates).toEqual([
      sphereCoordinates(38.9, -77.4),
      sphereCoordinates(37.4, -121.9),
      sphereCoordinates(1.3, 103.8),
      sphereCoordinates(53.3, -6.3),
    ])
  })

  it('every cross-region link is more than 7× slower than any intra-region link (the paper’s first observation)', () => {
    const intra = Math.min(...p.sites.map((s) => at(p, s, s).bandwidth))
    for (const s of p.sites)
      for (const t of p.sites) if (s !== t) expect(at(p, s, t).bandwidth * 7).toBeLessThan(intra)
  })
})

describe('azure-3 (Table 3, Standard D2)', () => {
  const p = azureThreeRegions()

  it('is valid and built in', () => {
    validateProfile(p)
    expect(p.name).toBe('azure-3')
    expect(p.sites).toEqual(['east-us', 'west-europe', 'japan-east'])
    expect(builtInProfile('azure-3')).toEqual(p)
    expect(Object.keys(builtInProfiles)).toEqual(['ec2-4', 'azure-3'])
  })

  it('Table 3: within East US 62 MB/s and 0.82 ms; to West Europe 2.9 and 42 ms; to Japan East 1.3 and 77 ms (one way)', () => {
    expect(at(p, 'east-us', 'east-us').bandwidth).toBeCloseTo(62 * MB, 3)
    expect(at(p, 'east-us', 'east-us').latency).toBeCloseTo(0.82e-3, 12)
    expectLink(p, 'east-us', 'west-europe', 2.9, 42e-3)
    expectLink(p, 'east-us', 'japan-east', 1.3, 77e-3)
  })

  it('rules: West Europe ↔ Japan East (9,293 km) takes East US ↔ Japan East (10,925 km); their intra figures are East US’s', () => {
    expectLink(p, 'west-europe', 'japan-east', 1.3, 77e-3)
    for (const s of ['west-europe', 'japan-east']) {
      expect(at(p, s, s).bandwidth).toBeCloseTo(62 * MB, 3)
      expect(at(p, s, s).latency).toBeCloseTo(0.82e-3, 12)
    }
  })
})

describe('the nearest-distance rule', () => {
  it('great-circle distances: one degree of a meridian is 111.2 km; Virginia–N. California 3,856 km', () => {
    expect(greatCircleKm([0, 0], [1, 0])).toBeCloseTo(111.19, 2)
    expect(greatCircleKm([38.9, -77.4], [37.4, -121.9])).toBeCloseTo(3856, -1)
  })

  it('holds for every unmeasured pair of both profiles (checked against the distances, not a list)', () => {
    const check = (m: PaperMeasurements, p: SiteProfile) => {
      const km = (s: number, t: number) => greatCircleKm(m.latLon[s]!, m.latLon[t]!)
      const measured = Object.keys(m.fromHub).map(Number)
      let unmeasured = 0
      for (let s = 0; s < p.sites.length; s++)
        for (let t = 0; t < p.sites.length; t++) {
          if (s === t || s === m.hub || t === m.hub) continue
          unmeasured++
          const gaps = measured.map((u) => Math.abs(km(m.hub, u) - km(s, t)))
          const nearest = measured[gaps.indexOf(Math.min(...gaps))]!
          // No tie that would make the rule ambiguous.
          expect(gaps.filter((g) => g === Math.min(...gaps))).toHaveLength(1)
          expect(p.bandwidth[s]![t]).toBe(p.bandwidth[m.hub]![nearest])
          expect(p.latency[s]![t]).toBe(p.latency[m.hub]![nearest])
        }
      return unmeasured
    }
    expect(check(EC2_REGIONS, ec2FourRegions())).toBe(6) // 3 pairs, both ways
    expect(check(AZURE_REGIONS, azureThreeRegions())).toBe(2)
  })
})
