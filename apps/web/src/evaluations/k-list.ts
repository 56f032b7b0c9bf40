/**
 * Bounds of a vocabulary size the form accepts. The upper bound and the count mirror
 * `CreateEvaluation`; the lower is 2 because with one word every histogram is the same.
 */
export const K_MIN = 2
export const K_MAX = 4096
/** At most this many vocabulary sizes in one evaluation. */
export const K_LIST_MAX = 16

/** The default vocabulary sizes of the launch form (the paper's sweep, ×4 steps). */
export const DEFAULT_K_LIST = '16, 64, 256, 1024'

/** A parsed k list, or why it is wrong (naming the offending entry). */
export type KListResult = { ok: true; ks: number[] } | { ok: false; error: string }

/**
 * Parses "16, 64 256,1024" into ascending, distinct vocabulary sizes. Commas and/or spaces
 * separate entries; every entry must be a whole number in [K_MIN, K_MAX]. Duplicates are an
 * error rather than dropped silently (a typo is likelier than an intended repeat).
 */
export function parseKList(text: string): KListResult {
  const parts = text
    .split(/[\s,;]+/)
    .map((p) => p.trim())
    .filter((p) => p !== '')
  if (parts.length === 0) return { ok: false, error: 'Give at least one vocabulary size k' }
  if (parts.length > K_LIST_MAX) return { ok: false, error: `At most ${K_LIST_MAX} values of k` }
  const ks: number[] = []
  for (const [i, p] of parts.entries()) {
    if (!/^\d+$/.test(p)) return { ok: false, error: `Entry ${i + 1} ("${p}") is not a whole number` }
    const k = Number(p)
    if (k < K_MIN || k > K_MAX)
      return { ok: false, error: `k = ${k} is out of range (${K_MIN} … ${K_MAX.toLocaleString('en-US')})` }
    if (ks.includes(k)) return { ok: false, error: `k = ${k} is listed twice` }
    ks.push(k)
  }
  return { ok: true, ks: ks.sort((a, b) => a - b) }
}

/** Formats vocabulary sizes back to the form's text ("16, 64, 256"). */
export function formatKList(ks: readonly number[]): string {
  return ks.join(', ')
}
