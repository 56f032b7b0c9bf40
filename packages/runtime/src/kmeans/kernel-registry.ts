import { CodebookError } from '../errors.ts'
import type { AssignKernel } from './kernels/assign-kernel.ts'
import { createReferenceKernel } from './kernels/reference-kernel.ts'

/** Builds one assignment kernel (a map task owns one). */
export type KernelFactory = () => AssignKernel | Promise<AssignKernel>

// Workers are separate processes, so the driver names a kernel and each worker builds it from here.
const factories = new Map<string, KernelFactory>([['reference', createReferenceKernel]])

/** Registers a kernel under `name` (the fast kernels call this from their module). */
export function registerKernel(name: string, factory: KernelFactory): void {
  factories.set(name, factory)
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
