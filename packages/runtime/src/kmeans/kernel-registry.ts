import { CodebookError } from '../errors.ts'
import type { AssignKernel } from './kernels/assign-kernel.ts'
import { createReferenceKernel } from './kernels/reference-kernel.ts'

/** What a map task's kernel may use: its share of the machine's cores. */
export interface KernelContext {
  threads: number
}

/** Builds one assignment kernel (a map task owns one). */
export type KernelFactory = (ctx: KernelContext) => AssignKernel | Promise<AssignKernel>

// Workers are separate processes, so the driver names a kernel and each worker builds it from here.
// The ONNX kernel is imported on first use: workers on the reference kernel never load onnxruntime.
const factories = new Map<string, KernelFactory>([
  ['reference', () => createReferenceKernel()],
  [
    'onnx',
    async (ctx) =>
      (await import('./kernels/ort-kernel.ts')).createOrtKernel({ intraOpNumThreads: ctx.threads }),
  ],
  // Exact int8 pass for uint8 data (byte-valued points only: other data is KERNEL_NOT_BYTES).
  [
    'int8',
    async (ctx) =>
      (await import('./kernels/int8-kernel.ts')).createInt8Kernel({ intraOpNumThreads: ctx.threads }),
  ],
])

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
