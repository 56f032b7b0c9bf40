import type { Dataset, Run } from '@codebook/shared'

/** Runs the confirmation names one by one; more are counted. */
const NAMED_RUNS = 5

/**
 * The question the dataset delete dialog asks: names the runs that used the dataset (their pages
 * will show it as deleted) and warns that queued or running ones will fail.
 */
export function datasetDeleteQuestion(dataset: Pick<Dataset, 'id' | 'name'>, runs: readonly Run[]): string {
  const using = runs.filter((r) => r.datasetId === dataset.id)
  const head = `Delete dataset “${dataset.name}” and its files? This cannot be undone.`
  if (using.length === 0) return head
  const named = using
    .slice(0, NAMED_RUNS)
    .map((r) => `${r.id.slice(0, 8)} (${r.status})`)
    .join(', ')
  const more = using.length > NAMED_RUNS ? ` and ${using.length - NAMED_RUNS} more` : ''
  const active = using.filter((r) => r.status === 'queued' || r.status === 'running').length
  const lines = [
    head,
    '',
    `${using.length === 1 ? '1 run uses' : `${using.length} runs use`} it: ${named}${more}.`,
    'Their pages and vocabularies stay; they will show the dataset as deleted.',
  ]
  if (active > 0)
    lines.push(`${active} of them ${active === 1 ? 'is' : 'are'} still queued or running and will fail.`)
  return lines.join('\n')
}
