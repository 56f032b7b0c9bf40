/**
 * Positions (0-based, in the whole log) of the first `count` lines that `keep` accepts. The log
 * panel numbers a line by its position + 1, so numbers are contiguous over the whole log and a
 * filtered view shows each kept line with its number in the whole log.
 */
export function logLinePositions<T>(
  lines: readonly T[],
  count: number,
  keep: (line: T) => boolean,
): number[] {
  const out: number[] = []
  const end = Math.min(count, lines.length)
  for (let i = 0; i < end; i++) if (keep(lines[i] as T)) out.push(i)
  return out
}
