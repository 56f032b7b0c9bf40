import { describe, expect, it } from 'vitest'
import { AUTO_KERNEL, INT8_AUTO_MIN_K, kernelNames, resolveKernelName } from './kernel-registry.ts'

describe('kernel auto', () => {
  const lloyd = { algorithm: 'lloyd', assignment: 'exact' } as const

  it('scans uint8 data with int8 under exact Lloyd from INT8_AUTO_MIN_K centroids', () => {
    expect(resolveKernelName(AUTO_KERNEL, { ...lloyd, bytes: true, k: INT8_AUTO_MIN_K })).toBe('int8')
    expect(resolveKernelName(AUTO_KERNEL, { ...lloyd, bytes: true, k: INT8_AUTO_MIN_K - 1 })).toBe('onnx')
    // k not named at load: float32, the safe side.
    expect(resolveKernelName(AUTO_KERNEL, { ...lloyd, bytes: true })).toBe('onnx')
  })

  for (const algorithm of ['hamerly', 'yinyang'] as const)
    it(`scans uint8 data with int8 under exact ${algorithm} from INT8_AUTO_MIN_K centroids (its full passes on bytes)`, () => {
      const exact = { algorithm, assignment: 'exact', bytes: true } as const
      expect(resolveKernelName(AUTO_KERNEL, { ...exact, k: INT8_AUTO_MIN_K })).toBe('int8')
      expect(resolveKernelName(AUTO_KERNEL, { ...exact, k: INT8_AUTO_MIN_K - 1 })).toBe('onnx')
      expect(
        resolveKernelName(AUTO_KERNEL, { ...exact, k: INT8_AUTO_MIN_K, assignment: 'approximate' }),
      ).toBe('onnx')
    })

  it('keeps float32 data and the approximate assignment on onnx; names force a kernel', () => {
    const k = 2 * INT8_AUTO_MIN_K
    expect(resolveKernelName(AUTO_KERNEL, { ...lloyd, bytes: false, k })).toBe('onnx')
    expect(
      resolveKernelName(AUTO_KERNEL, { bytes: false, k, algorithm: 'yinyang', assignment: 'exact' }),
    ).toBe('onnx')
    expect(resolveKernelName(AUTO_KERNEL, { ...lloyd, bytes: true, k, assignment: 'approximate' })).toBe(
      'onnx',
    )
    expect(resolveKernelName('int8', { ...lloyd, bytes: false, k: 2 })).toBe('int8')
    expect(resolveKernelName('onnx', { ...lloyd, bytes: true, k })).toBe('onnx')
    expect(kernelNames()).toEqual(expect.arrayContaining([AUTO_KERNEL, 'onnx', 'int8', 'reference']))
  })
})
