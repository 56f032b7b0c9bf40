/**
 * The experiments behind docs/reproductions.md: each is one or more `codebook` commands whose
 * JSON output `run.ts` stores as a result file in docs/data/reproductions/<id>.json. The report
 * (`render.ts`) reads only those files, so every number in it was printed by a command.
 */

/** One command of an experiment; `label` tags its output rows (a seed, a buffer size). */
export interface ExperimentRun {
  label: Record<string, string | number>
  /** Arguments of `node bin/codebook.js` (cwd packages/runtime); `{name}` is a fixture's path. */
  argv: string[]
}

/** How an experiment is run. */
export interface Experiment {
  id: string
  /** Files the runs read, made first by a `codebook` command: name → argv (stdout is the file). */
  fixtures?: Record<string, string[]>
  runs: ExperimentRun[]
  /** Timed on this machine: taken under the bench lock, with the load recorded. */
  timed?: boolean
  /** Needs root (the network lab). */
  root?: boolean
}

/** The papers' cluster (Twister, IU PolarGrid): 1 GbE nodes, racks of 42 behind 10 GbE uplinks. */
const papersCluster = [
  'topology',
  'generate',
  '--racks',
  '4',
  '--nodes-per-rack',
  '42',
  '--node-gbps',
  '1',
  '--uplink-gbps',
  '10',
]
const papersCluster8 = [...papersCluster, '--slots', '8']
/** `simulate kmeans` of the papers' image run (7.42 M × 512 on 125 nodes of the 8-slot cluster) at k centroids. */
const papersIteration = (k: number, ...rest: string[]) => [
  ...['simulate', 'kmeans', '--topology', '{papers}', '--n', '7420000', '--d', '512'],
  ...['--k', String(k), '--nodes', '125', ...rest, '--json'],
]
const oneGb = '1000000000'
const patterns = ['bt', 'sp', 'lu', 'kmeans', 'dnn'] as const
const seeds = [1, 2, 3, 4, 5] as const

/** `plan mapping` at the paper's Fig. 6 setting (64 processes, 4 sites of 16) for one case. */
const planMapping = (profile: string, pattern: string, ratio: number, seed: number): ExperimentRun => ({
  label: { profile, pattern, ratio, seed },
  argv: [
    'plan',
    'mapping',
    '--profile',
    profile,
    '--processes',
    '64',
    '--pattern',
    pattern,
    '--constraint-ratio',
    String(ratio),
    '--seed',
    String(seed),
    '--json',
  ],
})

/** `lab bench broadcast` on lab 0 with 100 Mbit/s hosts and 200 Mbit/s rack uplinks (docs/lab.md). */
const labBench = (racks: number, ...rest: string[]) => [
  ...['lab', 'bench', 'broadcast', '--lab', '0', '--racks', String(racks), '--hosts-per-rack', '4'],
  ...['--node-mbps', '100', '--uplink-mbps', '200', ...rest, '--json'],
]

/** Timed runs of the network lab: root, and the bench lock per command. */
const labExperiment = (id: string, runs: ExperimentRun[]): Experiment => ({
  id,
  timed: true,
  root: true,
  runs,
})

export const experiments: Experiment[] = [
  {
    id: 'twister-broadcast-1gb',
    fixtures: { papers: papersCluster },
    runs: [
      {
        label: {},
        argv: [
          'simulate',
          'broadcast',
          '--topology',
          '{papers}',
          '--bytes',
          oneGb,
          '--algorithms',
          'simple,mst,bucket,chain,chain-random',
          '--nodes',
          '2,26,51,76,101,126,151',
          '--json',
        ],
      },
    ],
  },
  {
    id: 'twister-socket-buffers',
    fixtures: { papers: papersCluster },
    runs: [
      {
        label: {},
        argv: [
          'simulate',
          'broadcast',
          '--topology',
          '{papers}',
          '--bytes',
          oneGb,
          '--algorithms',
          'chain',
          '--nodes',
          '125',
          '--socket-buffer',
          '8K,16K,32K,64K,128K,256K,512K,1M',
          '--base-rtt-us',
          '537',
          '--json',
        ],
      },
    ],
  },
  {
    id: 'twister-iteration-1m',
    fixtures: { papers: papersCluster8 },
    runs: [
      {
        label: { wire: 'bytes' },
        argv: papersIteration(1_000_000, '--encoding', 'uint8', '--combine', 'centroids'),
      },
      { label: { wire: 'codebook' }, argv: papersIteration(1_000_000) },
    ],
  },
  {
    id: 'twister-local-aggregation',
    fixtures: { papers: papersCluster8 },
    runs: (['three-stage', 'direct'] as const).map((aggregation) => ({
      label: { aggregation },
      argv: papersIteration(
        500_000,
        '--aggregation',
        aggregation,
        '--encoding',
        'uint8',
        '--combine',
        'centroids',
      ),
    })),
  },
  {
    id: 'twister-distance-fraction',
    // Clustered (320 blobs, ten centroids each to split) and structureless (standard normal) data:
    // the papers' HOG vectors are not public, and their structure lies between the two.
    runs: [320, 0].map((blobs) => ({
      label: { blobs },
      argv: [
        'bench',
        'kmeans',
        '--n',
        '76800',
        '--d',
        '512',
        '--k',
        '3200',
        '--blobs',
        String(blobs),
        '--algorithm',
        'yinyang',
        '--iterations',
        '20',
        '--workers',
        '2',
        '--slots',
        '2',
        '--seed',
        '1',
        '--json',
      ],
    })),
  },
  {
    id: 'map-collective-accuracy',
    runs: [
      {
        label: {},
        argv: [
          'evaluate',
          '--images',
          '../../data/digits.png',
          '--grid',
          '20x20',
          '--rows-per-class',
          '5',
          '--k',
          '16,64,256,1024,4096',
          '--json',
        ],
      },
    ],
  },
  labExperiment('lab-broadcast', [
    {
      label: {},
      argv: labBench(
        3,
        '--bytes',
        '16MB',
        '--hosts',
        '4,8,12',
        '--algorithms',
        'simple,mst,bucket,chain,chain-random',
        '--repeat',
        '3',
        '--peer',
        'mpi',
      ),
    },
  ]),
  labExperiment(
    'lab-mpi-256mb',
    [4, 8, 12].map((hosts) => ({
      label: { hosts },
      argv: labBench(
        3,
        '--bytes',
        '256MB',
        '--hosts',
        String(hosts),
        '--algorithms',
        'chain',
        '--repeat',
        '1',
        '--peer',
        'mpi',
      ),
    })),
  ),
  labExperiment(
    'lab-socket-buffers',
    [1024, 128, 32, 8].map((kb) => ({
      label: { tcpBufferKb: kb },
      argv: labBench(
        1,
        '--bytes',
        '2MB',
        '--hosts',
        '4',
        '--algorithms',
        'chain',
        '--delay-ms',
        '5',
        '--tcp-buffer-kb',
        String(kb),
        '--repeat',
        '3',
      ),
    })),
  ),
  {
    id: 'reductions-real-workers',
    timed: true,
    runs: [20, 100].flatMap((linkMs) =>
      [0.3, 1, 3].map((cv) => ({
        label: { linkMs, cv },
        argv: [
          'bench',
          'reduction',
          '--workers',
          '8',
          '--bytes',
          '64K',
          '--jitter-cv',
          String(cv),
          '--link-ms',
          String(linkMs),
          '--runs',
          '10',
          '--seed',
          '1',
          '--json',
        ],
      })),
    ),
  },
  {
    id: 'geo-fig6',
    runs: ['ec2-4', 'azure-3'].flatMap((profile) =>
      patterns.flatMap((pattern) => seeds.map((seed) => planMapping(profile, pattern, 0.2, seed))),
    ),
  },
  {
    id: 'geo-fig8',
    runs: [0, 0.1, 0.2, 0.3, 0.4, 0.5].flatMap((ratio) =>
      patterns.flatMap((pattern) => seeds.map((seed) => planMapping('ec2-4', pattern, ratio, seed))),
    ),
  },
]

/** The experiment with this id, or an error naming the known ones. */
export function experiment(id: string): Experiment {
  const found = experiments.find((e) => e.id === id)
  if (!found) throw new Error(`no experiment ${id}; known: ${experiments.map((e) => e.id).join(', ')}`)
  return found
}
