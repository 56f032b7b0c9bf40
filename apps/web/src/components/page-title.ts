/** Titles of the app's pages by the first path segment: the list page, then a detail page. */
const TITLES: Record<string, [list: string, detail: string]> = {
  datasets: ['Datasets', 'Dataset'],
  runs: ['Runs', 'Run'],
  topology: ['Topology', 'Topology editor'],
  evaluations: ['Evaluation', 'Evaluation detail'],
  vocabularies: ['Vocabularies', 'Vocabulary'],
  reductions: ['Reductions', 'Reduction study'],
}

/** The name of the page at `path` for the top bar (`/runs/compare` → "Compare runs"). */
export function pageTitle(path: string): string {
  const [section = '', detail, ...rest] = path.split('/').filter((s) => s !== '')
  if (section === 'runs' && detail === 'compare' && rest.length === 0) return 'Compare runs'
  const titles = TITLES[section]
  if (titles === undefined) return section === '' ? 'Datasets' : 'Page not found'
  return detail === undefined ? titles[0] : titles[1]
}
