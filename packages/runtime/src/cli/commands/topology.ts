import type { Command } from 'commander'
import { generateTopology } from '../../topology/generate.ts'
import { type CommandIo, processIo } from '../progress.ts'
import { positiveInt, positiveNumber } from './parse-options.ts'

/** Registers `codebook topology generate --racks R --nodes-per-rack N --node-gbps G --uplink-gbps U [--sites S] [--slots K]`. */
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
}
