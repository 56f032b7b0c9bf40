import type { Dataset } from '@codebook/shared'

/**
 * A failed import's message in a browser user's words: the runtime speaks to the CLI ("pass
 * --format …"); the page says what to change in the upload form instead.
 */
export function browserErrorMessage(error: { code: string; message: string }): string {
  if (error.code === 'UNKNOWN_FORMAT')
    return 'Codebook could not tell the format from the file name or its content. Choose the file again and pick its Format in the upload form (HOG text, NumPy .npy, .fvecs, .bvecs or CSV).'
  // Any other CLI flag named in a message: the form's Format select is the only choice the page offers.
  return error.message.replace(/;?\s*pass --format \([^)]*\)/, ' (pick the Format in the upload form)')
}

/**
 * The warning for a dataset name already taken (case and surrounding spaces ignored): a second
 * dataset of that name is allowed, but both would look the same in every list and select.
 */
export function duplicateNameWarning(name: string, datasets: readonly Dataset[]): string | null {
  const key = name.trim().toLowerCase()
  if (key === '') return null
  const same = datasets.filter((d) => d.name.trim().toLowerCase() === key)
  if (same.length === 0) return null
  return same.length === 1
    ? `A dataset is already named “${same[0]!.name}”: this one will be listed under the same name. Rename it to tell them apart.`
    : `${same.length} datasets are already named “${same[0]!.name}”: rename this one to tell them apart.`
}

/**
 * "Cluster this dataset": the run form with the dataset preselected (`/runs?datasetId=ID`, as
 * `?topology=` preselects a topology).
 */
export function clusterDatasetHref(datasetId: string): string {
  return `/runs?datasetId=${encodeURIComponent(datasetId)}`
}
