import type { TopologyTextFormat } from '@codebook/shared'

/**
 * Guesses the format of an imported topology file: `.json` or text starting with `{` → JSON; a
 * `SwitchName=` line → Slurm topology.conf; otherwise a Hadoop rack map (`host /dc/rack` lines).
 */
export function detectTopologyFormat(fileName: string, text: string): TopologyTextFormat {
  if (/\.json$/i.test(fileName) || text.trimStart().startsWith('{')) return 'json'
  if (/^\s*SwitchName\s*=/im.test(text)) return 'slurm'
  return 'hadoop'
}

/** A topology name from a file name: the base name without extension ("topology" when empty). */
export function nameFromFile(fileName: string): string {
  const base = fileName
    .replace(/^.*[\\/]/, '')
    .replace(/\.[^.]*$/, '')
    .trim()
  return base === '' ? 'topology' : base
}

/** File name for an export of topology `name` in `format`. */
export function exportFileName(name: string, format: TopologyTextFormat): string {
  const slug =
    name
      .trim()
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'topology'
  return format === 'json'
    ? `${slug}.json`
    : format === 'slurm'
      ? `${slug}-topology.conf`
      : `${slug}-racks.txt`
}
