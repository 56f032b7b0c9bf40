export { CodebookError, DatasetFormatError, UsageError } from './errors.ts'
export type { AssignKernel, AssignResult } from './kmeans/kernels/assign-kernel.ts'
export { assignReference, createReferenceKernel, rowDistanceSq } from './kmeans/kernels/reference-kernel.ts'
