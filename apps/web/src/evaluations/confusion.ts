/**
 * Row-normalises a confusion matrix (`confusion[true][predicted]` counts): each row divided by
 * the number of test images of that true class, so the diagonal is the per-class recall. A
 * class without test images gives a row of nulls, not a division by zero.
 */
export function normaliseConfusion(confusion: readonly (readonly number[])[]): (number | null)[][] {
  return confusion.map((row) => {
    const total = row.reduce((s, v) => s + v, 0)
    return row.map((v) => (total === 0 ? null : v / total))
  })
}

/** Sum of the diagonal over the sum of all cells: the overall accuracy the matrix implies. */
export function confusionAccuracy(confusion: readonly (readonly number[])[]): number | null {
  let correct = 0
  let total = 0
  for (const [i, row] of confusion.entries()) {
    for (const [j, v] of row.entries()) {
      total += v
      if (i === j) correct += v
    }
  }
  return total === 0 ? null : correct / total
}

/**
 * Background of a confusion cell: the diagonal in the accent blue, mistakes in red, with opacity
 * growing with the row share. Off-diagonal shares are small, so they are scaled up (×2, capped)
 * to stay visible; a zero cell stays blank.
 */
export function confusionCellColour(fraction: number | null, diagonal: boolean): string {
  if (fraction === null || fraction <= 0) return 'transparent'
  const alpha = diagonal ? 0.12 + 0.78 * fraction : Math.min(0.85, 0.12 + 1.6 * fraction)
  const rgb = diagonal ? '47, 91, 234' : '220, 38, 38'
  return `rgba(${rgb}, ${alpha.toFixed(3)})`
}

/** Whether text on a cell of that colour should be light (dark backgrounds). */
export function confusionCellDark(fraction: number | null, diagonal: boolean): boolean {
  if (fraction === null) return false
  return diagonal ? fraction > 0.55 : fraction > 0.45
}
