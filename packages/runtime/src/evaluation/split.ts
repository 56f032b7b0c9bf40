import type { Rng } from '../random/rng.ts'

/**
 * Seeded stratified train/test split: within each class, a `trainFraction` share of the
 * items (rounded) goes to training, chosen by a seeded shuffle. Returns sorted index lists.
 */
export function stratifiedSplit(
  labels: Int32Array,
  trainFraction: number,
  rng: Rng,
): { train: Int32Array; test: Int32Array } {
  const byClass = new Map<number, number[]>()
  labels.forEach((label, i) => {
    const list = byClass.get(label)
    if (list) list.push(i)
    else byClass.set(label, [i])
  })
  const train: number[] = []
  const test: number[] = []
  for (const cls of [...byClass.keys()].sort((a, b) => a - b)) {
    const items = byClass.get(cls)!
    for (let i = items.length - 1; i > 0; i--) {
      const j = rng.int(i + 1)
      ;[items[i], items[j]] = [items[j]!, items[i]!]
    }
    const cut = Math.round(items.length * trainFraction)
    train.push(...items.slice(0, cut))
    test.push(...items.slice(cut))
  }
  return {
    train: Int32Array.from(train.sort((a, b) => a - b)),
    test: Int32Array.from(test.sort((a, b) => a - b)),
  }
}
