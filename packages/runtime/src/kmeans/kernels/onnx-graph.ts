import type { onnx as OnnxTypes } from 'onnx-proto'
import onnxProto from 'onnx-proto'

// onnx-proto is CommonJS with `module.exports = root`; Node only exposes it as the default export.
const { onnx } = onnxProto

/**
 * Which outputs a built assignment graph produces.
 * - `assign`: `labels` [m] int32 (argmin, first index on ties) and `minDistSq` [m] float32.
 * - `distances`: `distSq` [m, k] float32, the whole block of squared distances (for bound
 *   initialisation in the accelerated algorithms and for centroid–centroid distances).
 * - `nearest-two`: `top2Labels` [m, 2] int32 and `top2DistSq` [m, 2] float32, the nearest and
 *   second-nearest centroid (TopK, smallest first; needs k ≥ 2). Hamerly's re-scans need only
 *   these, and moving 2 values per row instead of k is what makes them BLAS-speed.
 */
export type AssignGraphVariant = 'assign' | 'distances' | 'nearest-two'

/** Input names of every assignment graph: X [m, d], C [k, d], cNorm [k] (‖c‖², computed by the caller). */
export const ASSIGN_GRAPH_INPUTS = { points: 'X', centroids: 'C', centroidNormsSq: 'cNorm' } as const

/** Output names of the assignment graphs. */
export const ASSIGN_GRAPH_OUTPUTS = {
  labels: 'labels',
  minDistSq: 'minDistSq',
  distSq: 'distSq',
  top2Labels: 'top2Labels',
  top2DistSq: 'top2DistSq',
} as const

// opset 17 is the last where ReduceMin / ReduceSumSquare take `axes` as an attribute, not an input.
const OPSET = 17
// IR 8 is what onnx-proto 8 (ONNX 1.10) describes; onnxruntime 1.30 reads it.
const IR_VERSION = 8

const { FLOAT, INT32, INT64 } = onnx.TensorProto.DataType
const A = onnx.AttributeProto.AttributeType

function intAttr(name: string, i: number): OnnxTypes.IAttributeProto {
  return { name, type: A.INT, i }
}

function floatAttr(name: string, f: number): OnnxTypes.IAttributeProto {
  return { name, type: A.FLOAT, f }
}

function intsAttr(name: string, ints: number[]): OnnxTypes.IAttributeProto {
  return { name, type: A.INTS, ints }
}

function tensorInfo(name: string, elemType: number, dims: Array<string | number>): OnnxTypes.IValueInfoProto {
  return {
    name,
    type: {
      tensorType: {
        elemType,
        shape: { dim: dims.map((dim) => (typeof dim === 'string' ? { dimParam: dim } : { dimValue: dim })) },
      },
    },
  }
}

function node(
  opType: string,
  input: string[],
  output: string[],
  attribute: OnnxTypes.IAttributeProto[] = [],
): OnnxTypes.INodeProto {
  return { opType, input, output, attribute, name: output[0] }
}

/**
 * Builds the serialized ONNX model of the dense assignment kernel for dimension `d`
 * (m and k are symbolic, so one session serves every block size and every k).
 *
 * The distance is expanded as ‖x‖² − 2x·c + ‖c‖²: one Gemm(X, C, cNorm; alpha = −2,
 * transB = 1) computes the last two terms for a whole block at BLAS speed (cNorm rides in
 * Gemm's bias input, broadcast over rows), then ArgMin / ReduceMin along axis 1, and
 * ReduceSumSquare(X) adds ‖x‖². Results can be slightly negative through cancellation; the
 * caller clamps them at 0.
 */
export function buildAssignModel(d: number, variant: AssignGraphVariant): Uint8Array {
  const { points, centroids, centroidNormsSq } = ASSIGN_GRAPH_INPUTS
  const nodes: OnnxTypes.INodeProto[] = [
    node(
      'Gemm',
      [points, centroids, centroidNormsSq],
      ['partial'],
      [floatAttr('alpha', -2), floatAttr('beta', 1), intAttr('transB', 1)],
    ),
  ]
  const outputs: OnnxTypes.IValueInfoProto[] = []
  const initializers: OnnxTypes.ITensorProto[] = []
  if (variant === 'assign') {
    nodes.push(
      // select_last_index = 0: ties go to the lowest centroid index, as in the reference kernel.
      node(
        'ArgMin',
        ['partial'],
        ['labels64'],
        [intAttr('axis', 1), intAttr('keepdims', 0), intAttr('select_last_index', 0)],
      ),
      // int64 labels would arrive as a BigInt64Array; int32 is what the rest of the runtime uses.
      node('Cast', ['labels64'], [ASSIGN_GRAPH_OUTPUTS.labels], [intAttr('to', INT32)]),
      node('ReduceMin', ['partial'], ['partialMin'], [intsAttr('axes', [1]), intAttr('keepdims', 0)]),
      node('ReduceSumSquare', [points], ['xNorm'], [intsAttr('axes', [1]), intAttr('keepdims', 0)]),
      node('Add', ['partialMin', 'xNorm'], [ASSIGN_GRAPH_OUTPUTS.minDistSq]),
    )
    outputs.push(
      tensorInfo(ASSIGN_GRAPH_OUTPUTS.labels, INT32, ['m']),
      tensorInfo(ASSIGN_GRAPH_OUTPUTS.minDistSq, FLOAT, ['m']),
    )
  } else if (variant === 'distances') {
    nodes.push(
      node('ReduceSumSquare', [points], ['xNorm'], [intsAttr('axes', [1]), intAttr('keepdims', 1)]),
      node('Add', ['partial', 'xNorm'], [ASSIGN_GRAPH_OUTPUTS.distSq]),
    )
    outputs.push(tensorInfo(ASSIGN_GRAPH_OUTPUTS.distSq, FLOAT, ['m', 'k']))
  } else {
    initializers.push({ name: 'two', dataType: INT64, dims: [1], int64Data: [2] })
    nodes.push(
      // largest = 0, sorted = 1: the two smallest, nearest first; equal values keep the lower index first.
      node(
        'TopK',
        ['partial', 'two'],
        ['top2Partial', 'top2Labels64'],
        [intAttr('axis', 1), intAttr('largest', 0), intAttr('sorted', 1)],
      ),
      node('Cast', ['top2Labels64'], [ASSIGN_GRAPH_OUTPUTS.top2Labels], [intAttr('to', INT32)]),
      node('ReduceSumSquare', [points], ['xNorm'], [intsAttr('axes', [1]), intAttr('keepdims', 1)]),
      node('Add', ['top2Partial', 'xNorm'], [ASSIGN_GRAPH_OUTPUTS.top2DistSq]),
    )
    outputs.push(
      tensorInfo(ASSIGN_GRAPH_OUTPUTS.top2Labels, INT32, ['m', 2]),
      tensorInfo(ASSIGN_GRAPH_OUTPUTS.top2DistSq, FLOAT, ['m', 2]),
    )
  }
  const graph = onnx.GraphProto.create({
    name: `codebook_${variant}_d${d}`,
    node: nodes,
    input: [
      tensorInfo(points, FLOAT, ['m', d]),
      tensorInfo(centroids, FLOAT, ['k', d]),
      tensorInfo(centroidNormsSq, FLOAT, ['k']),
    ],
    output: outputs,
    initializer: initializers,
  })
  const model = onnx.ModelProto.create({
    irVersion: IR_VERSION,
    opsetImport: [{ domain: '', version: OPSET }],
    producerName: 'codebook',
    graph,
  })
  return onnx.ModelProto.encode(model).finish()
}
