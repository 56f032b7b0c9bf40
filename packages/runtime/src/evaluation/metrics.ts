/** Accuracy, per-class recall and the confusion matrix (rows: true class, columns: predicted). */
export interface ClassificationReport {
  accuracy: number
  /** perClass[c] = share of class-c items predicted as c (recall); NaN for a class with no items. */
  perClass: number[]
  confusion: number[][]
}

/** Compares predictions with the truth. */
export function classificationReport(
  truth: Int32Array,
  predicted: Int32Array,
  classes: number,
): ClassificationReport {
  const confusion = Array.from({ length: classes }, () => new Array<number>(classes).fill(0))
  let correct = 0
  for (let i = 0; i < truth.length; i++) {
    confusion[truth[i]]![predicted[i]]! += 1
    if (truth[i] === predicted[i]) correct++
  }
  const perClass = confusion.map((row, c) => {
    const total = row.reduce((a, b) => a + b, 0)
    return total === 0 ? Number.NaN : row[c]! / total
  })
  return { accuracy: truth.length === 0 ? Number.NaN : correct / truth.length, perClass, confusion }
}
