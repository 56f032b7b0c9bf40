// Fuzzing every reader with fast-check: random bytes and mutations of valid files (plain and
// gzipped, under every format name and with the format detected) must end in stats or a
// DatasetFormatError with a documented code — never another exception, never a hang, and never
// a file left in the output directory. Bounded in runs and in wall-clock time.
import { mkdir, readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import type { DatasetFormat } from '@codebook/shared'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DatasetFormatError } from '../errors.ts'
import { datasetErrorCodes } from './error-codes.ts'
import { convertToNpy, importToStore } from './store.ts'
import { npyBytes, useTempDir, vecsBytes } from './test-support/fixtures.ts'

const tmp = useTempDir()

/** Runs of the property and the wall-clock cap on all of them (whichever comes first). */
const RUNS = 600
const TIME_LIMIT_MS = 15_000
/** One run taking this long is a hang: no input here is bigger than a few KB. */
const RUN_TIMEOUT_MS = 5_000

const f32 = (xs: number[]) => new Uint8Array(Float32Array.from(xs).buffer)
const f64be = (xs: number[]) => {
  const v = new DataView(new ArrayBuffer(xs.length * 8))
  for (let i = 0; i < xs.length; i++) v.setFloat64(i * 8, xs[i], false)
  return new Uint8Array(v.buffer)
}

/** Rows [1 … d] and [d + 1 … 2d]. */
const twoRows = (d: number) => [0, 1].map((r) => Array.from({ length: d }, (_, j) => r * d + j + 1))

/** Valid files of every format and variant, the seeds of the mutations, each under its own name. */
const SEEDS: Array<[string, Buffer]> = [
  ['hog.txt', Buffer.from('1 2 3 0.5 0.25 7\n4 5 6 1 2 -3e-2\n')],
  ['bom-crlf.hog', Buffer.from('\ufeff10 0 1 1.5 2.5\r\n10 0 2 3.5 4.5\r\n')],
  ['names.txt', Buffer.from('img_0.jpg 0 0 1 2\nimg_0.jpg 0 1 3 4\nd41d8cd9 1 1 5 6\n')],
  ['header.csv', Buffer.from('x,y,z\n1,2,3\n4.5,"5",6\n')],
  ['f4.npy', npyBytes(f32([1, 2, 3, 4, 5, 6]), { descr: '<f4', shape: '(3, 2)' })],
  ['f8-fortran.npy', npyBytes(f64be([1, 2, 3, 4, 5, 6]), { descr: '>f8', shape: '(3, 2)', fortran: true })],
  ['u1.npy', npyBytes(Uint8Array.from([0, 1, 2, 250]), { descr: '|u1', shape: '(2, 2)', version: 2 })],
  ['x.fvecs', vecsBytes(twoRows(3), 'fvecs')],
  ['x.bvecs', vecsBytes(twoRows(4), 'bvecs')],
]

/** One edit of a byte string: the kinds of damage real files suffer (bit rot, cuts, splices). */
const edit = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), bit: fc.nat(7) }),
  fc.record({
    kind: fc.constant('set' as const),
    at: fc.nat(),
    byte: fc.constantFrom(0, 9, 10, 13, 32, 44, 45, 46, 101, 0x7f, 0x80, 0xff),
  }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), bytes: fc.uint8Array({ maxLength: 16 }) }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.nat(16) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('repeat' as const),
    at: fc.nat(),
    length: fc.nat(64),
    times: fc.integer({ min: 2, max: 50 }),
  }),
)
type Edit = typeof edit extends fc.Arbitrary<infer T> ? T : never

function applyEdit(b: Buffer, e: Edit): Buffer {
  // Odd positions count from the end, so binary seeds (a long header, short data) get damaged data too.
  const offset = (e.at >> 1) % (b.length + 1)
  const at = e.at % 2 === 1 ? b.length - offset : offset
  switch (e.kind) {
    case 'flip': {
      if (b.length === 0) return b
      const out = Buffer.from(b)
      out[at % b.length] ^= 1 << e.bit
      return out
    }
    case 'set': {
      if (b.length === 0) return b
      const out = Buffer.from(b)
      out[at % b.length] = e.byte
      return out
    }
    case 'insert':
      return Buffer.concat([b.subarray(0, at), e.bytes, b.subarray(at)])
    case 'delete':
      return Buffer.concat([b.subarray(0, at), b.subarray(at + e.length)])
    case 'truncate':
      return b.subarray(0, at)
    case 'repeat': {
      const piece = b.subarray(at, at + e.length)
      return Buffer.concat([b.subarray(0, at), ...Array(e.times).fill(piece), b.subarray(at)])
    }
  }
}

const names = ['in.txt', 'in.csv', 'in.npy', 'in.fvecs', 'in.bvecs', 'in.txt.gz', 'in.npy.gz', 'in.dat']
const formats: Array<DatasetFormat | undefined> = [undefined, 'hog-text', 'csv', 'npy', 'fvecs', 'bvecs']

/**
 * An input file: random bytes under any name and format, or a seed with edits, gzipped before or
 * after the edits or not at all, mostly under its own name with the format detected (so the
 * damage reaches deep into its reader), sometimes under any name and format.
 */
const input = fc.oneof(
  fc.record({
    bytes: fc.uint8Array({ maxLength: 4096 }).map((b) => Buffer.from(b)),
    name: fc.constantFrom(...names),
    format: fc.constantFrom(...formats),
  }),
  fc
    .record({
      seed: fc.nat(SEEDS.length - 1),
      edits: fc.array(edit, { maxLength: 6 }),
      gzip: fc.constantFrom('none', 'before', 'after'),
      own: fc.nat(3),
      name: fc.constantFrom(...names),
      format: fc.constantFrom(...formats),
    })
    .map(({ seed, edits, gzip, own, name, format }) => {
      let [seedName, bytes] = SEEDS[seed]
      if (gzip === 'before') bytes = gzipSync(bytes)
      for (const e of edits) bytes = applyEdit(bytes, e)
      if (gzip === 'after') bytes = gzipSync(bytes)
      return own > 0 ? { bytes, name: seedName, format: undefined } : { bytes, name, format }
    }),
)

describe('readers under fuzzing', () => {
  it('end in stats or a documented DatasetFormatError, leave nothing behind and never hang', async () => {
    const inputs = join(tmp.dir(), 'inputs')
    const out = join(tmp.dir(), 'out')
    await rm(out, { recursive: true, force: true })
    await Promise.all([mkdir(inputs), mkdir(out)])
    const outcomes = new Map<string, number>()
    await fc.assert(
      fc.asyncProperty(input, fc.boolean(), async ({ bytes, name, format }, toStore) => {
        const file = await tmp.write(join('inputs', name), bytes)
        // Small limits so the bounds are crossed often; every outcome stays a coded one.
        const options = { format, maxLineBytes: 256, maxFields: 32, maxExpandedBytes: 64 * 1024 }
        let outcome = 'ok'
        try {
          if (toStore) await importToStore(file, join(out, 'ds'), options)
          else await convertToNpy(file, join(out, 'x.npy'), options)
        } catch (err) {
          if (!(err instanceof DatasetFormatError)) throw err
          expect(datasetErrorCodes).toHaveProperty(err.code)
          expect(err.message.startsWith(file)).toBe(true)
          outcome = err.code
        }
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1)
        if (outcome === 'ok') {
          await rm(join(out, 'ds'), { recursive: true, force: true })
          await rm(join(out, 'x.npy'), { force: true })
          await rm(join(out, 'x.ids.npy'), { force: true })
          await rm(join(out, 'x.picture-names.txt'), { force: true })
        }
        expect(await readdir(out)).toEqual([])
        await rm(file)
      }),
      {
        numRuns: Number(process.env.FUZZ_RUNS ?? RUNS),
        seed: Number(process.env.FUZZ_SEED ?? 17),
        timeout: RUN_TIMEOUT_MS,
        interruptAfterTimeLimit: TIME_LIMIT_MS,
      },
    )
    if (process.env.FUZZ_SEED) console.log(Object.fromEntries(outcomes))
    // The fuzzing reached both sides: valid inputs and several kinds of refusal.
    expect(outcomes.get('ok') ?? 0).toBeGreaterThan(0)
    expect(outcomes.size).toBeGreaterThan(5)
  }, 60_000)
})
