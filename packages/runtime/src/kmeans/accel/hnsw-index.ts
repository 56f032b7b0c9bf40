import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { Index, MetricKind, ScalarKind } from 'usearch'

/** A batch search's answer: `count` keys per query row (fewer valid ones where `counts` says so). */
export interface HnswMatches {
  keys: BigUint64Array
  counts: BigUint64Array
}

/** An L2² HNSW index over rows of one scalar type, added and searched in batches. */
export interface HnswIndex<Row extends Float32Array | Int8Array> {
  add(keys: BigUint64Array, rows: Row, threads: number): void
  search(queries: Row, count: number, threads: number): HnswMatches
}

/** The settings of an index (usearch's names). */
export interface HnswSettings {
  dimensions: number
  connectivity: number
  expansionAdd: number
  expansionSearch: number
}

/** A float32 / float16 index through usearch's `Index`. */
export function floatHnswIndex(settings: HnswSettings, scalar: 'f32' | 'f16'): HnswIndex<Float32Array> {
  const index = new Index({
    dimensions: settings.dimensions,
    metric: MetricKind.L2sq,
    quantization: scalar === 'f16' ? ScalarKind.F16 : ScalarKind.F32,
    multi: false,
    connectivity: settings.connectivity,
    expansion_add: settings.expansionAdd,
    expansion_search: settings.expansionSearch,
  })
  return {
    add: (keys, rows, threads) => index.add(keys, rows, threads),
    // A flat matrix of rows is a batch query: usearch answers BatchMatches (keys and counts per row).
    search: (queries, count, threads) => index.search(queries, count, threads) as unknown as HnswMatches,
  }
}

/** usearch's native index class, as its JavaScript wrapper constructs and calls it. */
interface NativeIndex {
  add(keys: BigUint64Array, rows: Int8Array, threads: number): void
  search(queries: Int8Array, count: number, threads: number): [BigUint64Array, Float32Array, BigUint64Array]
}
type NativeIndexClass = new (
  dimensions: number,
  metric: string,
  quantization: string,
  connectivity: number,
  expansionAdd: number,
  expansionSearch: number,
  multi: boolean,
) => NativeIndex

let nativeClass: NativeIndexClass | undefined

/**
 * usearch's compiled addon, loaded as its wrapper loads it (node-gyp-build from the package root).
 * Needed for int8 rows: the wrapper turns every typed array into a Float32Array before the native
 * call, and the native float → i8 cast then scales each vector to unit length (a dot-product
 * assumption), so through the wrapper an i8 L2 index compares directions. The native index takes
 * an Int8Array as it is and computes exact integer L2². Pinned by `usearch` ~2.25 in package.json;
 * `int8-index-map.test.ts` fails if a release changes either side.
 */
function loadNativeClass(): NativeIndexClass {
  if (nativeClass) return nativeClass
  const require = createRequire(import.meta.url)
  let root = dirname(require.resolve('usearch'))
  const isUsearchRoot = (dir: string) =>
    existsSync(join(dir, 'package.json')) &&
    (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string }).name === 'usearch'
  while (!isUsearchRoot(root) && dirname(root) !== root) root = dirname(root)
  const build = require('node-gyp-build') as (dir: string) => { CompiledIndex: NativeIndexClass }
  nativeClass = build(root).CompiledIndex
  return nativeClass
}

/** An int8 index: rows already quantised (`int8-index-map.ts`), stored and compared as they are. */
export function int8HnswIndex(settings: HnswSettings): HnswIndex<Int8Array> {
  const Native = loadNativeClass()
  const index = new Native(
    settings.dimensions,
    MetricKind.L2sq,
    ScalarKind.I8,
    settings.connectivity,
    settings.expansionAdd,
    settings.expansionSearch,
    false,
  )
  return {
    add: (keys, rows, threads) => index.add(keys, rows, threads),
    search: (queries, count, threads) => {
      const [keys, , counts] = index.search(queries, count, threads)
      return { keys, counts }
    },
  }
}
