import { writeFile } from 'node:fs/promises'
import type { Command } from 'commander'
import { UsageError } from '../../errors.ts'
import { TOPOLOGY_IMPORT_DEFAULTS } from '../../topology/formats/import-options.ts'
import {
  formatTopology,
  readTopologyFile,
  type TopologyFormat,
  topologyFormatFromPath,
  topologyFormats,
} from '../../topology/formats/topology-format.ts'
import { generateTopology } from '../../topology/generate.ts'
import { type CommandIo, processIo } from '../progress.ts'
import { positiveInt, positiveNumber } from './parse-options.ts'

/** Options of `codebook topology convert`. */
export interface ConvertTopologyOptions {
  input: string
  /** Output file, or '-' for stdout. */
  output: string
  from?: TopologyFormat
  to?: TopologyFormat
  name?: string
  slots?: number
  nicGbps?: number
  uplinkGbps?: number
}

function formatOption(flag: string): (v: string) => TopologyFormat {
  return (v) => {
    if (!(topologyFormats as readonly string[]).includes(v))
      throw new UsageError('BAD_OPTION', `${flag} must be one of ${topologyFormats.join(', ')}, got '${v}'`)
    return v as TopologyFormat
  }
}

/**
 * Converts a topology file between the project's JSON, a Hadoop rack mapping and a Slurm
 * topology.conf; formats default from the file extensions (see `topologyFormatFromPath`).
 */
export async function runConvertTopology(
  o: ConvertTopologyOptions,
  io: CommandIo = processIo(),
): Promise<void> {
  const to = o.to ?? (o.output === '-' ? 'json' : topologyFormatFromPath(o.output))
  const t = await readTopologyFile(o.input, o.from, {
    ...(o.name !== undefined ? { name: o.name } : {}),
    ...(o.slots !== undefined ? { slots: o.slots } : {}),
    ...(o.nicGbps !== undefined ? { nicGbps: o.nicGbps } : {}),
    ...(o.uplinkGbps !== undefined ? { uplinkGbps: o.uplinkGbps } : {}),
  })
  const text = formatTopology(t, to)
  if (o.output === '-') io.stdout.write(text)
  else await writeFile(o.output, text)
}

/**
 * Registers `codebook topology generate --racks R --nodes-per-rack N --node-gbps G --uplink-gbps U
 * [--sites S] [--slots K]` and `codebook topology convert IN OUT [--from F] [--to F]`.
 */
export function registerTopology(program: Command, io: CommandIo = processIo()): void {
  const topology = program.command('topology').description('Work with rack topologies (site → rack → node)')
  topology
    .command('generate')
    .description(
      'Print a regular topology as JSON: S sites × R racks per site × N nodes per rack, all on host "local".',
    )
    .requiredOption('--racks <R>', 'racks per site', positiveInt('--racks'))
    .requiredOption('--nodes-per-rack <N>', 'nodes per rack', positiveInt('--nodes-per-rack'))
    .requiredOption('--node-gbps <G>', 'node NIC bandwidth, Gbit/s', positiveNumber('--node-gbps'))
    .requiredOption('--uplink-gbps <U>', 'rack uplink bandwidth, Gbit/s', positiveNumber('--uplink-gbps'))
    .option('--sites <S>', 'sites', positiveInt('--sites'), 1)
    .option('--slots <K>', 'map-task slots per node', positiveInt('--slots'), 1)
    .option('--name <name>', 'topology name')
    .action(
      (o: {
        racks: number
        nodesPerRack: number
        nodeGbps: number
        uplinkGbps: number
        sites: number
        slots: number
        name?: string
      }) => {
        const t = generateTopology(o)
        io.stdout.write(`${JSON.stringify(t, null, 2)}\n`)
      },
    )
  topology
    .command('convert')
    .description(
      'Convert a topology between json, hadoop (host /dc/rack lines) and slurm (topology.conf); formats default from the extensions (.json, .txt/.map/.data, .conf)',
    )
    .argument('<in>', 'input file')
    .argument('<out>', "output file, or '-' for stdout (json unless --to)")
    .option('--from <format>', `input format: ${topologyFormats.join(', ')}`, formatOption('--from'))
    .option('--to <format>', `output format: ${topologyFormats.join(', ')}`, formatOption('--to'))
    .option('--name <name>', 'topology name (hadoop and slurm inputs)')
    .option(
      '--slots <K>',
      `map-task slots per node (hadoop and slurm inputs; default ${TOPOLOGY_IMPORT_DEFAULTS.slots})`,
      positiveInt('--slots'),
    )
    .option(
      '--nic-gbps <G>',
      `node NIC bandwidth, Gbit/s (hadoop and slurm inputs; default ${TOPOLOGY_IMPORT_DEFAULTS.nicGbps})`,
      positiveNumber('--nic-gbps'),
    )
    .option(
      '--uplink-gbps <U>',
      `rack uplink bandwidth, Gbit/s (hadoop and slurm inputs; default ${TOPOLOGY_IMPORT_DEFAULTS.uplinkGbps})`,
      positiveNumber('--uplink-gbps'),
    )
    .action(async (input: string, output: string, o: Omit<ConvertTopologyOptions, 'input' | 'output'>) => {
      await runConvertTopology({ ...o, input, output }, io)
    })
}
