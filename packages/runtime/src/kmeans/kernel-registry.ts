import { CodebookError } from '../errors.ts'
import type { AssignKernel } from './kernels/assign-kernel.ts'
import { createReferenceKernel } from './kernels/reference-kernel.ts'

/** What a map task's kernel may use: its share of the machine's cores. */
export interface KernelContext {
  threads: number
}

/** Builds one assignment kernel (a map task owns one). */
export type KernelFactory = (ctx: KernelContext) => AssignKernel | Promise<AssignKernel>

/** The float32 ORT kernel (BLAS speed), imported on first use. */
const onnxFactory: KernelFactory = async (ctx) =>
  (await import('./kernels/ort-kernel.ts')).createOrtKernel({ intraOpNumThreads: ctx.threads })

/**
 * The kernel name that lets a worker choose by its data (the shared default, `runDefaults.kernel`):
 * see {@link resolveKernelName}. Built without knowing the data (the init's sample, `evaluate`),
 * it is the float32 `onnx` kernel.
 */
export const AUTO_KERNEL = 'auto'

// Workers are separate processes, so the driver names a kernel and each worker builds it from here.
// The ONNX kernel is imported on first use: workers on the reference kernel never load onnxruntime.
const factories = new Map<string, KernelFactory>([
  [AUTO_KERNEL, onnxFactory],
  ['reference', () => createReferenceKernel()],
  ['onnx', onnxFactory],
  // Exact int8 pass for uint8 data (byte-valued points only: other data is KERNEL_NOT_BYTES).
  [
    'int8',
    async (ctx) =>
      (await import('./kernels/int8-kernel.ts')).createInt8Kernel({ intraOpNumThreads: ctx.threads }),
  ],
])

/**
 * From this many centroids `auto` scans uint8 data with the int8 kernel. Below it the float32 pass
 * is cheap and the int8 pass's fixed costs win (a session per centroid set, the exact settling of
 * ~90 % of the points among ~9 candidates): at d = 512, 1 worker, int8 took 2.5 × onnx's time at
 * k = 1,000, 1.3 × at 2,500 and 0.9 × at 5,000 (docs/benchmarks.md, "The exact int8 pass"). Both
 * costs grow with d, so the crossover is a number of centroids. Yinyang at k = 5,000 (d = 512,
 * n = 50,000, 500 blobs): 0.85 × onnx's run, its first pass 0.78 ×, the same inertia.
 */
export const INT8_AUTO_MIN_K = 4096

/** What {@link resolveKernelName} looks at: the partition as stored and how its map tasks assign. */
export interface KernelChoiceContext {
  /** The partition is uint8 (a `|u1` .npy). */
  bytes: boolean
  /** Centroids, when the load names them (else `auto` keeps to float32). */
  k?: number
  /** The map tasks' algorithm, `auto` already resolved. */
  algorithm: 'lloyd' | 'hamerly' | 'yinyang'
  assignment: 'exact' | 'approximate'
}

/**
 * The kernel a worker builds for `name`: `auto` is `int8` for uint8 data under an exact algorithm
 * — Lloyd (every pass on bytes), Hamerly or Yinyang (their full passes on bytes, the rest on a
 * float32 `onnx` kernel built beside it: `byte-lloyd.ts`) — with at least
 * {@link INT8_AUTO_MIN_K} centroids, and `onnx` otherwise (the approximate assignment needs float32
 * points and a float32 distance-matrix kernel), so float32 runs are unchanged. Any other name is
 * returned as is: `--kernel int8` and `--kernel onnx` force either.
 */
export function resolveKernelName(name: string, ctx: KernelChoiceContext): string {
  if (name !== AUTO_KERNEL) return name
  const scansBytes = ctx.bytes && ctx.assignment === 'exact'
  return scansBytes && (ctx.k ?? 0) >= INT8_AUTO_MIN_K ? 'int8' : 'onnx'
}

/** Registers a kernel under `name`. */
export function registerKernel(name: string, factory: KernelFactory): void {
  factories.set(name, factory)
}

/** Names of the registered kernels. */
export function kernelNames(): string[] {
  return [...factories.keys()]
}

/** The factory registered under `name`. */
export function kernelFactory(name: string): KernelFactory {
  const f = factories.get(name)
  if (!f)
    throw new CodebookError(
      'KERNEL_UNKNOWN',
      `no assignment kernel named '${name}' (known: ${[...factories.keys()].join(', ')})`,
    )
  return f
}
