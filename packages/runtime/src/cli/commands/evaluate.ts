import { stat } from 'node:fs/promises'
import { type Command, Option } from 'commander'
import { CodebookError, UsageError } from '../../errors.ts'
import {
  type EvaluationEncoding,
  type EvaluationProgress,
  type EvaluationResult,
  evaluateVocabularies,
  readVocabularyFile,
  type VocabularyEvaluation,
} from '../../evaluation/evaluate.ts'
import type { LabelledImageSource } from '../../evaluation/labelled-images.ts'
import type { SpawnWorker } from '../../framework/spawn.ts'
import { spawnLocalWorker } from '../../framework/spawn.ts'
import { type CommandIo, processIo } from '../progress.ts'
import { intList, nonNegativeInt, positiveInt, positiveNumber } from './parse-options.ts'

/** Options of `codebook evaluate`. */
export interface EvaluateCommandOptions {
  images: string
  grid?: string
  rowsPerClass?: number
  columns?: number
  /** Vocabulary sizes to learn (may be absent with --vocabulary). */
  k?: number[]
  /** Vocabulary `.npy` files (k × d centroids) to evaluate as they are. */
  vocabulary?: string[]
  patch: number
  stride: number
  cell: number
  bins: number
  split: number
  seed: number
  initSeed: number
  iterations: number
  workers: number
  slots: number
  kernel: string
  c: number
  encoding: EvaluationEncoding
  json?: boolean
}

const ENCODINGS: readonly EvaluationEncoding[] = ['hard', 'triangle']

/**
 * Runs `codebook evaluate`: the {@link evaluateVocabularies} pipeline over the given images.
 * With --json, one JSON line per k as it finishes; otherwise a k / accuracy table at the end.
 * Progress goes to stderr when it is a terminal.
 */
export async function runEvaluateCommand(
  o: EvaluateCommandOptions,
  io: CommandIo = processIo(),
  spawn: SpawnWorker = spawnLocalWorker,
): Promise<EvaluationResult> {
  if ((o.k ?? []).length === 0 && (o.vocabulary ?? []).length === 0)
    throw new UsageError('BAD_USAGE', 'give --k (sizes to learn) and/or --vocabulary FILE.npy')
  const source = await sourceOf(o)
  const vocabularies = await Promise.all((o.vocabulary ?? []).map((file) => readVocabularyFile(file)))
  const tty = io.stderr.isTTY === true
  const onProgress = (p: EvaluationProgress) => {
    io.stderr.write(
      `\r\x1b[K${p.k === undefined ? '' : `k ${p.k}: `}${p.stage} ${Math.round(p.fraction * 100)}%`,
    )
  }
  const started = performance.now()
  const result = await evaluateVocabularies({
    source,
    ks: o.k ?? [],
    vocabularies,
    hog: { patch: o.patch, stride: o.stride, cell: o.cell, bins: o.bins },
    trainFraction: o.split,
    seed: o.seed,
    initSeed: o.initSeed,
    iterations: o.iterations,
    workers: o.workers,
    slots: o.slots,
    kernel: o.kernel,
    c: o.c,
    encoding: o.encoding,
    spawn,
    ...(tty ? { onProgress } : {}),
    onResult: (r) => {
      if (tty) io.stderr.write('\r\x1b[K')
      if (o.json) io.stdout.write(`${JSON.stringify(r)}\n`)
    },
  })
  if (!o.json) io.stdout.write(table(result, (performance.now() - started) / 1000))
  return result
}

function table(result: EvaluationResult, seconds: number): string {
  const rows = result.results.map(
    (r: VocabularyEvaluation) =>
      `${String(r.k).padStart(6)}  ${r.accuracy.toFixed(4)}  ${r.vocabularySeconds.toFixed(2).padStart(8)}  ${r.trainSeconds.toFixed(2).padStart(6)}${r.label === undefined ? '' : `  ${r.label}`}\n`,
  )
  const first = result.results[0]
  return (
    `evaluate: ${result.images} images in ${result.classes.length} classes, ${result.patches} patches × d ${result.d}` +
    `${first ? `, ${first.trainImages} train / ${first.testImages} test` : ''}\n` +
    `     k  accuracy  vocab s  svm s\n${rows.join('')}done in ${seconds.toFixed(1)} s\n`
  )
}

async function sourceOf(o: EvaluateCommandOptions): Promise<LabelledImageSource> {
  if (o.grid === undefined) {
    if (o.rowsPerClass !== undefined || o.columns !== undefined)
      throw new UsageError('BAD_USAGE', '--rows-per-class and --columns need --grid')
    return o.images.toLowerCase().endsWith('.zip')
      ? { kind: 'zip', file: o.images }
      : { kind: 'folder', dir: o.images }
  }
  const m = /^(\d+)x(\d+)$/i.exec(o.grid.trim())
  if (!m || Number(m[1]) < 1 || Number(m[2]) < 1)
    throw new UsageError('BAD_OPTION', `--grid must be WxH in pixels, e.g. 20x20, got '${o.grid}'`)
  if (o.rowsPerClass === undefined)
    throw new UsageError(
      'BAD_USAGE',
      '--grid needs --rows-per-class (grid rows per class) to label the cells',
    )
  try {
    if ((await stat(o.images)).isDirectory())
      throw new UsageError('BAD_USAGE', `${o.images}: --grid needs one grid image, not a folder`)
  } catch (err) {
    if (err instanceof CodebookError) throw err
    throw new CodebookError('FILE_NOT_FOUND', `${o.images}: no such file or folder`)
  }
  return {
    kind: 'grid',
    file: o.images,
    cellWidth: Number(m[1]),
    cellHeight: Number(m[2]),
    rowsPerClass: o.rowsPerClass,
    ...(o.columns === undefined ? {} : { columns: o.columns }),
  }
}

function splitFraction(v: string): number {
  const n = Number(v)
  if (!(n > 0 && n < 1)) throw new UsageError('BAD_OPTION', `--split must be a number in (0, 1), got '${v}'`)
  return n
}

/** Registers `codebook evaluate`. */
export function registerEvaluate(program: Command, io: CommandIo = processIo()): void {
  program
    .command('evaluate')
    .description(
      'Evaluate visual vocabularies by classification: labelled images → dense HOG → seeded stratified split → for each --k, ' +
        'a vocabulary learned by K-means on the TRAIN patches (k-means++ then Lloyd on spawned workers) → one histogram per image ' +
        '→ one-versus-rest linear SVM (LIBLINEAR dual CD, = LinearSVC) trained on train, scored on test. ' +
        '--images is a grid image (with --grid and --rows-per-class), a folder with one sub-folder per class, or a .zip laid out the same way.',
    )
    .requiredOption(
      '--images <path>',
      'grid image (with --grid), folder of class sub-folders, or .zip of class folders',
    )
    .option('--grid <WxH>', 'cut --images, a grid image, into cells of W × H pixels')
    .option(
      '--rows-per-class <n>',
      'with --grid: grid rows per class (label = ⌊gridRow / n⌋)',
      positiveInt('--rows-per-class'),
    )
    .option(
      '--columns <n>',
      'with --grid: use only the first n cells of every grid row',
      positiveInt('--columns'),
    )
    .option('--k <list>', 'vocabulary sizes to learn, comma-separated, e.g. 16,64,256', intList('--k'))
    .option(
      '--vocabulary <file.npy>',
      'a vocabulary (k × d centroids .npy) to evaluate as it is, no K-means; repeatable or a comma list',
      (v: string, prev: string[] = []) => [
        ...prev,
        ...v
          .split(',')
          .map((f) => f.trim())
          .filter((f) => f !== ''),
      ],
    )
    .option('--patch <n>', 'patch side in pixels', positiveInt('--patch'), 8)
    .option('--stride <n>', 'patch stride in pixels', positiveInt('--stride'), 4)
    .option('--cell <n>', 'cell side in pixels', positiveInt('--cell'), 4)
    .option('--bins <n>', 'orientation bins over 0–180°', positiveInt('--bins'), 8)
    .option('--split <f>', 'share of each class used for training', splitFraction, 0.5)
    .option('--seed <S>', 'seed of the stratified split', nonNegativeInt('--seed'), 1)
    .option('--init-seed <S>', 'seed of every vocabulary’s k-means++ init', nonNegativeInt('--init-seed'), 7)
    .option('--iterations <N>', 'Lloyd iterations per vocabulary', positiveInt('--iterations'), 15)
    .option('--workers <P>', 'worker processes', positiveInt('--workers'), 1)
    .option('--slots <S>', 'map tasks per worker', positiveInt('--slots'), 2)
    .option('--kernel <name>', 'assignment kernel of the map tasks', 'onnx')
    .option('--c <C>', 'SVM regularisation C', positiveNumber('--c'), 1)
    .addOption(new Option('--encoding <e>', 'histogram encoding').choices(ENCODINGS).default('hard'))
    .option('--json', 'one JSON object per k: {"k","accuracy","perClass","confusion",…}')
    .action(async (o: EvaluateCommandOptions) => {
      await runEvaluateCommand(o, io)
    })
}
