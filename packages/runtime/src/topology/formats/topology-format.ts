import { readFile } from 'node:fs/promises'
import { extname } from 'node:path'
import type { Topology } from '@codebook/shared'
import { DatasetFormatError, UsageError } from '../../errors.ts'
import { validateTopology } from '../validate-topology.ts'
import { formatHadoopRackMap, parseHadoopRackMap } from './hadoop.ts'
import type { TopologyImportOptions } from './import-options.ts'
import { formatSlurmTopology, parseSlurmTopology } from './slurm.ts'

/** The topology file formats: the project's JSON, a Hadoop rack mapping, a Slurm topology.conf. */
export const topologyFormats = ['json', 'hadoop', 'slurm'] as const
export type TopologyFormat = (typeof topologyFormats)[number]

/**
 * Reads the project's JSON: a syntax error is `TOPOLOGY_PARSE` with the line it was found on,
 * a schema violation the coded error of {@link validateTopology}.
 */
export function parseTopologyJson(text: string, file?: string): Topology {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (err) {
    const message = (err as Error).message
    // V8 reports "… at position N" (and, since Node 21, "(line L column C)"): name the line.
    const pos = /position (\d+)/.exec(message)
    const line = pos ? text.slice(0, Number(pos[1])).split('\n').length : undefined
    throw new DatasetFormatError(
      'TOPOLOGY_PARSE',
      `${file ? `${file}:` : ''}${line !== undefined ? `line ${line}: ` : ''}${message}`,
      { ...(file ? { file } : {}), ...(line !== undefined ? { line } : {}) },
    )
  }
  return validateTopology(json, file)
}

/** The project's JSON, pretty-printed with two spaces and a final newline. */
export function formatTopologyJson(t: Topology): string {
  return `${JSON.stringify(t, null, 2)}\n`
}

/** Parses `text` in `format`; `options` fill in what Hadoop and Slurm files do not say (JSON ignores them). */
export function parseTopology(
  text: string,
  format: TopologyFormat,
  options: TopologyImportOptions = {},
): Topology {
  if (format === 'json') return parseTopologyJson(text, options.file)
  if (format === 'hadoop') return parseHadoopRackMap(text, options)
  return parseSlurmTopology(text, options)
}

/** Writes `t` in `format` (Hadoop and Slurm keep only names and structure, see their writers). */
export function formatTopology(t: Topology, format: TopologyFormat): string {
  if (format === 'json') return formatTopologyJson(t)
  if (format === 'hadoop') return formatHadoopRackMap(t)
  return formatSlurmTopology(t)
}

/**
 * The format a file name implies: `.json` → json; `.conf` (topology.conf) → slurm; `.txt`,
 * `.map`, `.data`, `.hadoop` → hadoop (rack-map tables have no fixed extension). Throws
 * `TOPOLOGY_UNKNOWN_FORMAT` otherwise, asking for `--from`/`--to`.
 */
export function topologyFormatFromPath(file: string): TopologyFormat {
  const ext = extname(file).toLowerCase()
  if (ext === '.json') return 'json'
  if (ext === '.conf') return 'slurm'
  if (['.txt', '.map', '.data', '.hadoop'].includes(ext)) return 'hadoop'
  throw new UsageError(
    'TOPOLOGY_UNKNOWN_FORMAT',
    `cannot tell the topology format of '${file}' from its extension: give it (${topologyFormats.join(', ')})`,
  )
}

/** Reads a topology file in `format` (from the extension when absent). */
export async function readTopologyFile(
  file: string,
  format?: TopologyFormat,
  options: TopologyImportOptions = {},
): Promise<Topology> {
  const resolved = format ?? topologyFormatFromPath(file)
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (err) {
    throw new UsageError('TOPOLOGY_UNREADABLE', `${file}: ${(err as Error).message}`)
  }
  return parseTopology(text, resolved, { ...options, file })
}
