import { UsageError } from '../../errors.ts'

/** Expansion stops here: a typo like `n[0-99999999]` should fail, not exhaust memory. */
export const MAX_HOSTLIST_HOSTS = 1_000_000

/**
 * Splits a Slurm hostlist on the commas outside brackets: `tux[0-3,7],db1` → `tux[0-3,7]`, `db1`.
 */
function splitTopLevel(list: string): string[] {
  const parts: string[] = []
  let depth = 0
  let start = 0
  for (let i = 0; i < list.length; i++) {
    const c = list[i]
    if (c === '[') {
      if (depth > 0) throw new UsageError('TOPOLOGY_BAD_HOSTLIST', `nested '[' in '${list}'`)
      depth++
    } else if (c === ']') {
      if (depth === 0) throw new UsageError('TOPOLOGY_BAD_HOSTLIST', `unmatched ']' in '${list}'`)
      depth--
    } else if (c === ',' && depth === 0) {
      parts.push(list.slice(start, i))
      start = i + 1
    }
  }
  if (depth !== 0) throw new UsageError('TOPOLOGY_BAD_HOSTLIST', `unmatched '[' in '${list}'`)
  parts.push(list.slice(start))
  return parts
}

/** The numbers of one bracket body, as strings: `0-3,7` → 0 1 2 3 7; `001-003` keeps the width. */
function expandBracket(body: string, list: string): string[] {
  const out: string[] = []
  for (const item of body.split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(item.trim())
    if (!m) throw new UsageError('TOPOLOGY_BAD_HOSTLIST', `bad range '${item}' in '${list}'`)
    const lo = m[1]!
    const hi = m[2] ?? lo
    const a = Number(lo)
    const b = Number(hi)
    if (b < a) throw new UsageError('TOPOLOGY_BAD_HOSTLIST', `descending range '${item}' in '${list}'`)
    if (b - a + 1 > MAX_HOSTLIST_HOSTS)
      throw new UsageError('TOPOLOGY_BAD_HOSTLIST', `range '${item}' in '${list}' is too large`)
    // Slurm's rule: the width of the lower bound sets the zero padding of the whole range.
    for (let v = a; v <= b; v++) out.push(String(v).padStart(lo.length, '0'))
  }
  return out
}

/**
 * Expands a Slurm hostlist expression into host names, in the order written.
 * Supported: comma-separated items; in an item any number of bracket groups, each a
 * comma-separated list of numbers and `lo-hi` ranges (`tux[0-3,7]`, `n[001-010]`,
 * `r[1-2]n[1-2]` = r1n1 r1n2 r2n1 r2n2, leftmost group slowest); zero padding from the lower
 * bound's width. Not supported: nested brackets, `^`/step syntax.
 */
export function expandHostlist(list: string): string[] {
  const hosts: string[] = []
  const trimmed = list.trim()
  if (trimmed === '') return hosts
  for (const item of splitTopLevel(trimmed)) {
    if (item.trim() === '') throw new UsageError('TOPOLOGY_BAD_HOSTLIST', `empty item in '${list}'`)
    // Literal runs and bracket groups alternate: lit0 [g0] lit1 [g1] … litN.
    const pieces = item.trim().split(/\[([^\]]*)\]/)
    let names = ['']
    pieces.forEach((piece, i) => {
      const options = i % 2 === 0 ? [piece] : expandBracket(piece, list)
      const next: string[] = []
      for (const prefix of names) for (const o of options) next.push(prefix + o)
      if (next.length > MAX_HOSTLIST_HOSTS)
        throw new UsageError('TOPOLOGY_BAD_HOSTLIST', `'${item}' expands to too many hosts`)
      names = next
    })
    for (const n of names)
      if (n.trim() === '' || /\s/.test(n))
        throw new UsageError('TOPOLOGY_BAD_HOSTLIST', `bad host name '${n}' in '${list}'`)
    hosts.push(...names)
    if (hosts.length > MAX_HOSTLIST_HOSTS)
      throw new UsageError('TOPOLOGY_BAD_HOSTLIST', `'${list}' expands to too many hosts`)
  }
  return hosts
}

/**
 * Compresses host names into a Slurm hostlist that {@link expandHostlist} turns back into the
 * same names in the same order. Consecutive names that differ only in their last run of digits
 * share one bracket group; ascending runs of consecutive numbers of one width become `lo-hi`
 * (`tux0 tux1 tux2 tux3 tux7` → `tux[0-3,7]`, `n001 … n010` → `n[001-010]`). Only the last digit
 * run is bracketed (`r1n1 r1n2 r2n1` → `r1n[1-2],r2n1`). Names containing `[`, `]`, `,` or
 * whitespace cannot be written.
 */
export function compressHostlist(names: readonly string[]): string {
  type Group = { prefix: string; suffix: string; digits: string[] }
  const groups: (Group | string)[] = []
  for (const name of names) {
    if (name === '' || /[[\],\s=#]/.test(name))
      throw new UsageError('TOPOLOGY_UNEXPORTABLE', `host name '${name}' cannot appear in a Slurm hostlist`)
    const m = /^(.*?)(\d+)(\D*)$/.exec(name)
    if (!m) {
      groups.push(name)
      continue
    }
    const [, prefix, digits, suffix] = m as unknown as [string, string, string, string]
    const last = groups.at(-1)
    if (typeof last === 'object' && last.prefix === prefix && last.suffix === suffix) last.digits.push(digits)
    else groups.push({ prefix, suffix, digits: [digits] })
  }
  return groups
    .map((g) => {
      if (typeof g === 'string') return g
      if (g.digits.length === 1) return `${g.prefix}${g.digits[0]}${g.suffix}`
      return `${g.prefix}[${ranges(g.digits).join(',')}]${g.suffix}`
    })
    .join(',')
}

/** `lo-hi` items for a list of digit strings, in order; a range keeps the width of its lower bound. */
function ranges(digits: readonly string[]): string[] {
  const out: string[] = []
  let i = 0
  while (i < digits.length) {
    const lo = digits[i]!
    let j = i
    // Extend while the next value is one more and prints the same at lo's width.
    while (
      j + 1 < digits.length &&
      Number(digits[j + 1]) === Number(digits[j]) + 1 &&
      String(Number(digits[j + 1])).padStart(lo.length, '0') === digits[j + 1]
    )
      j++
    out.push(j === i ? lo : `${lo}-${digits[j]}`)
    i = j + 1
  }
  return out
}
