/** The site racks go to when the format names none (Hadoop `/rack` lines, Slurm leaf switches under no upper switch). */
export const DEFAULT_SITE = 'default'

/**
 * What Hadoop rack maps and Slurm topology.conf do not say, filled in on import.
 * Defaults: 1 slot and 1 Gbit/s per node, 10 Gbit/s rack uplinks (the papers' cluster).
 */
export interface TopologyImportOptions {
  /** Topology name; default from the format (`hadoop`, `slurm`). */
  name?: string
  slots?: number
  nicGbps?: number
  uplinkGbps?: number
  /** File name for error messages. */
  file?: string
}

/** The defaults of {@link TopologyImportOptions}. */
export const TOPOLOGY_IMPORT_DEFAULTS = { slots: 1, nicGbps: 1, uplinkGbps: 10 } as const
