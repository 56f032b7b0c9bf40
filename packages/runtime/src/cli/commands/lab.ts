import { writeFile } from 'node:fs/promises'
import { type Command, Option } from 'commander'
import { UsageError } from '../../errors.ts'
import {
  type LabBroadcast,
  type LabBroadcastPeer,
  labBroadcastPeers,
  labBroadcasts,
  runLabBenchBroadcast,
} from '../../lab/bench-broadcast.ts'
import { calibrateLab } from '../../lab/lab-calibrate.ts'
import { labSpecFromTopology } from '../../lab/lab-from-topology.ts'
import { labDown, labStatus, labUp } from '../../lab/lab-net.ts'
import { type LabSpec, MAX_LAB_ID, planLab } from '../../lab/lab-plan.ts'
import { labSitesFromProfile } from '../../lab/lab-sites.ts'
import { loadSiteProfile, type SiteProfile } from '../../mapping/site-profile.ts'
import { readTopology } from '../../topology/load-topology.ts'
import { type CommandIo, processIo } from '../progress.ts'
import { registerLabBenchMapping } from './lab-bench-mapping.ts'
import {
  byteSize,
  intList,
  listOf,
  nonNegativeInt,
  nonNegativeNumber,
  positiveInt,
  positiveNumber,
} from './parse-options.ts'

/** Default chunk of the lab bench: 64 KiB takes 5.5 ms at 100 Mbit/s, as 512 KiB does at 1 GbE (4.4 ms). */
export const LAB_CHUNK_BYTES = 64 * 1024

interface LabShapeFlags {
  topology?: string
  profile?: string
  hostsPerSite?: number
  latencyScale: number
  lab: number
  racks: number
  hostsPerRack: number
  nodeMbps: number
  uplinkMbps: number
  scale: number
  delayMs?: number
  tcpBufferKb?: number
  queueKb?: number
  slowStartAfterIdle: boolean
}

/** The flags every lab command that builds a lab shares. */
function labShapeOptions(cmd: Command): Command {
  return cmd
    .option(
      '--topology <file>',
      'take racks, hosts per rack and rates from a topology (JSON, Slurm, Hadoop; racks must be alike), times --scale',
    )
    .option(
      '--profile <name|file>',
      'sites from a site profile (built-in ec2-4, or a profile JSON such as `lab calibrate --out`): one rack per site, site-pair delays and rates (rates times --scale)',
    )
    .option('--hosts-per-site <H>', 'hosts per site with --profile', positiveInt('--hosts-per-site'))
    .option(
      '--latency-scale <f>',
      "multiply the profile's latencies by f (with --profile)",
      nonNegativeNumber('--latency-scale'),
      1,
    )
    .option('--racks <R>', 'racks', positiveInt('--racks'), 3)
    .option('--hosts-per-rack <H>', 'hosts per rack', positiveInt('--hosts-per-rack'), 4)
    .option(
      '--node-mbps <M>',
      'rate of every host link, each way, Mbit/s (before --scale)',
      positiveNumber('--node-mbps'),
      100,
    )
    .option(
      '--uplink-mbps <U>',
      'rate of every rack uplink, each way, Mbit/s (before --scale)',
      positiveNumber('--uplink-mbps'),
      200,
    )
    .option(
      '--scale <f>',
      'multiply every rate by f (e.g. 0.1 runs 1 GbE as 100 Mbit/s so two cores can fill the links)',
      positiveNumber('--scale'),
      1,
    )
    .option(
      '--delay-ms <D>',
      'one-way delay on every host link (netem): each hop costs D, a round trip 2D',
      nonNegativeNumber('--delay-ms'),
    )
    .option(
      '--tcp-buffer-kb <K>',
      'per-host TCP buffer limit (tcp_rmem/tcp_wmem max), KiB',
      positiveInt('--tcp-buffer-kb'),
    )
    .option(
      '--queue-kb <Q>',
      "queue of every shaped link, KiB, like a switch port's buffer (default: htb's 1000 frames)",
      positiveInt('--queue-kb'),
    )
    .option(
      '--no-slow-start-after-idle',
      "hosts keep TCP's congestion window when a connection idles (tcp_slow_start_after_idle=0, as tuned hosts do)",
    )
    .addOption(labIdOption())
}

function labIdOption(): Option {
  return new Option('--lab <id>', `lab number 0–${MAX_LAB_ID}: names cb<id>-…, addresses 10.213.(32·id).0/19`)
    .argParser(nonNegativeInt('--lab'))
    .default(0)
}

async function specOf(o: LabShapeFlags): Promise<LabSpec> {
  const extra = {
    id: o.lab,
    ...(o.delayMs === undefined ? {} : { delayMs: o.delayMs }),
    ...(o.tcpBufferKb === undefined ? {} : { tcpBufferKb: o.tcpBufferKb }),
    ...(o.queueKb === undefined ? {} : { queueKb: o.queueKb }),
    ...(o.slowStartAfterIdle === false ? { slowStartAfterIdle: false } : {}),
  }
  if (o.profile) {
    for (const [flag, set] of [
      ['--topology', o.topology !== undefined],
      ['--delay-ms', o.delayMs !== undefined],
    ] as const)
      if (set)
        throw new UsageError('LAB_BAD_SPEC', `--profile sets the sites' delays and rates: drop ${flag}`)
    const shaped = labSitesFromProfile(await loadSiteProfile(o.profile), o.hostsPerSite ?? 3, {
      rateScale: o.scale,
      latencyScale: o.latencyScale,
    })
    return { ...extra, ...shaped }
  }
  if (o.hostsPerSite !== undefined) throw new UsageError('LAB_BAD_SPEC', '--hosts-per-site needs --profile')
  if (o.topology) return labSpecFromTopology(await readTopology(o.topology), o.scale, extra)
  return {
    ...extra,
    racks: o.racks,
    hostsPerRack: o.hostsPerRack,
    nodeMbps: o.nodeMbps * o.scale,
    uplinkMbps: o.uplinkMbps * o.scale,
  }
}

/** A profile as two tables: one-way latency (ms) and bandwidth (Mbit/s), row = from, column = to. */
function profileTable(p: SiteProfile): string {
  const head = `${''.padEnd(12)}${p.sites.map((s) => s.padStart(12)).join('')}\n`
  const rows = (m: number[][], f: (v: number) => string) =>
    m.map((row, s) => `${p.sites[s]!.padEnd(12)}${row.map((v) => f(v).padStart(12)).join('')}\n`).join('')
  return (
    `latency, ms (one way)\n${head}${rows(p.latency, (v) => (v * 1000).toFixed(2))}` +
    `bandwidth, Mbit/s (payload)\n${head}${rows(p.bandwidth, (v) => ((v * 8) / 1e6).toFixed(2))}`
  )
}

/**
 * Registers `codebook lab up|down|status` and `codebook lab bench broadcast`: a network of
 * namespaces on this machine (Linux, root) whose links `tc` shapes, and broadcasts timed on it.
 */
export function registerLab(program: Command, io: CommandIo = processIo()): void {
  const lab = program
    .command('lab')
    .description(
      'A network lab on this machine (Linux, root): one network namespace per host, veths into rack bridges, racks joined by a core namespace, tc-shaped links.',
    )
  labShapeOptions(
    lab
      .command('up')
      .description(
        'Build a lab (after removing what an earlier lab with the same id left) and print each host: namespace, address, rack. ' +
          'Run workers with: ip netns exec NS codebook worker --join DRIVER:PORT',
      ),
  )
    .option('--json', 'print the hosts as JSON')
    .action(async (o: LabShapeFlags & { json?: boolean }) => {
      const plan = await labUp(await specOf(o))
      if (o.json)
        io.stdout.write(`${JSON.stringify({ driverAddress: plan.driverAddress, hosts: plan.hosts })}\n`)
      else {
        io.stdout.write(
          `lab ${o.lab}: ${plan.hosts.length} hosts in ${plan.block}; a driver listens on ${plan.driverAddress}\n`,
        )
        for (const h of plan.hosts)
          io.stdout.write(
            `${h.netns.padEnd(14)}${h.address.padEnd(16)}${h.rack}${h.site ? ` ${h.site}` : ''}\n`,
          )
      }
    })
  lab
    .command('down')
    .description(
      'Remove a lab and anything a crashed run left: processes in its namespaces, namespaces, links, state file',
    )
    .addOption(labIdOption())
    .action(async (o: { lab: number }) => {
      await labDown(o.lab)
    })
  lab
    .command('status')
    .description("What exists of a lab: namespaces, processes inside them, the driver's link")
    .addOption(labIdOption())
    .option('--json', 'print as JSON')
    .action(async (o: { lab: number; json?: boolean }) => {
      const s = await labStatus(o.lab)
      io.stdout.write(
        o.json
          ? `${JSON.stringify(s)}\n`
          : s.namespaces.length === 0 && !s.driverLink
            ? `lab ${o.lab}: down\n`
            : `lab ${o.lab}: ${s.namespaces.length} namespaces, ${s.pids.length} processes, driver link ${s.driverLink ? 'up' : 'absent'}\n`,
      )
    })
  lab
    .command('calibrate')
    .description(
      'Calibrate a running lab as the paper calibrates sites: 1-byte and 8 MB ping-pong between one pair of hosts per site pair (and within each site); prints a site profile (latency s, bandwidth B/s) that `plan mapping --profile FILE` reads',
    )
    .addOption(labIdOption())
    .option(
      '--pings <N>',
      '1-byte ping-pongs per pair (median RTT / 2 = latency)',
      positiveInt('--pings'),
      20,
    )
    .option(
      '--bytes <B>',
      'the large message (bandwidth = bytes / (time − RTT))',
      byteSize('--bytes'),
      8 * 2 ** 20,
    )
    .option('--repeat <N>', 'timed large messages per pair, after one untimed', positiveInt('--repeat'), 1)
    .option('--out <file>', 'also write the profile to this JSON file')
    .option('--json', 'print the profile as one JSON line')
    .action(
      async (o: {
        lab: number
        pings: number
        bytes: number
        repeat: number
        out?: string
        json?: boolean
      }) => {
        const spec = (await labStatus(o.lab)).spec
        if (!spec)
          throw new UsageError('LAB_NOT_UP', `lab ${o.lab} is not up (codebook lab up --lab ${o.lab} …)`)
        const profile = await calibrateLab(planLab(spec), {
          pings: o.pings,
          largeBytes: o.bytes,
          repeat: o.repeat,
        })
        if (o.out) await writeFile(o.out, `${JSON.stringify(profile, null, 2)}\n`)
        if (o.json) io.stdout.write(`${JSON.stringify(profile)}\n`)
        else io.stdout.write(profileTable(profile))
      },
    )
  const bench = lab.command('bench').description('Benchmarks on a lab built for the run and removed after it')
  labShapeOptions(
    bench
      .command('broadcast')
      .description(
        'Time the real broadcast algorithms between lab hosts; print one line per point with the simulator\'s prediction for the same lab: {"algorithm","hosts","bytes","seconds","simulatedSeconds"}',
      ),
  )
    .option(
      '--bytes <B>',
      'message size (binary units: 16MB = 16 × 2^20)',
      byteSize('--bytes'),
      16 * 1024 * 1024,
    )
    .option('--hosts <list>', 'host counts (the first N hosts, rack by rack)', intList('--hosts'), [4, 8, 12])
    .option('--algorithms <list>', 'algorithms, comma-separated', listOf('--algorithms', labBroadcasts), [
      ...labBroadcasts,
    ])
    .option(
      '--repeat <N>',
      'timed runs per point (median reported), after one warm-up',
      positiveInt('--repeat'),
      3,
    )
    .option(
      '--chunk-bytes <B>',
      "data-plane chunk size; the default keeps a chunk's time on a 100 Mbit/s link near the runtime's 512 KiB on 1 GbE",
      byteSize('--chunk-bytes'),
      LAB_CHUNK_BYTES,
    )
    .option('--seed <n>', 'seed of the random chain order', nonNegativeInt('--seed'), 1)
    .option(
      '--peer <list>',
      "peers timed on the same hosts after the algorithms: mpi (Open MPI's MPI_Bcast; needs Debian's openmpi-bin and libopenmpi-dev)",
      listOf('--peer', labBroadcastPeers),
    )
    .option('--json', 'one JSON object per point')
    .action(
      async (
        o: LabShapeFlags & {
          bytes: number
          hosts: number[]
          algorithms: LabBroadcast[]
          repeat: number
          chunkBytes: number
          seed: number
          peer?: LabBroadcastPeer[]
          json?: boolean
        },
      ) => {
        // The table header goes out with the first row, so bad input prints nothing but its error.
        let header = !o.json
        await runLabBenchBroadcast(
          {
            lab: await specOf(o),
            bytes: o.bytes,
            hosts: o.hosts,
            algorithms: o.algorithms,
            repeat: o.repeat,
            chunkBytes: o.chunkBytes,
            seed: o.seed,
            ...(o.peer ? { peers: o.peer } : {}),
          },
          (row) => {
            if (header)
              io.stdout.write(
                `${'algorithm'.padEnd(14)}${'hosts'.padStart(6)}${'bytes'.padStart(12)}${'seconds'.padStart(10)}${'simulated'.padStart(11)}\n`,
              )
            header = false
            io.stdout.write(
              o.json
                ? `${JSON.stringify(row)}\n`
                : `${row.algorithm.padEnd(14)}${String(row.hosts).padStart(6)}${String(row.bytes).padStart(12)}${row.seconds.toFixed(3).padStart(10)}${(row.simulatedSeconds === null ? '—' : row.simulatedSeconds.toFixed(3)).padStart(11)}\n`,
            )
          },
        )
      },
    )
  registerLabBenchMapping(
    bench,
    labShapeOptions,
    specOf as (flags: never) => Promise<LabSpec>,
    io,
    LAB_CHUNK_BYTES,
  )
}
