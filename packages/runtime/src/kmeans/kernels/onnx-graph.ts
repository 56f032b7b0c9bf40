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
 * - `group-two`: the k centroid rows are laid out member-major for t groups of G members (row
 *   p·t + q is member p of group q; extra input `groupShape` = [0, G, t]): `groupNearestIndex`
 *   [m, 1] int32 and `groupNearestDistSq` [m, 1], the nearest row (as `assign`), and
 *   `groupMinDistSq` [m, t], every group's minimum over its rows except that nearest one.
 *   Yinyang's exact group bounds from t + 1 values per row instead of k; member-major makes the
 *   group minimum a reduction over the middle axis (contiguous t-vectors), and masking one entry
 *   per row (ScatterElements) replaces a TopK over millions of tiny rows (~2× slower).
 */
export type AssignGraphVariant = 'assign' | 'distances' | 'nearest-two' | 'group-two'

/** Input names of every assignment graph: X [m, d], C [k, d], cNorm [k] (‖c‖², computed by the caller). */
export const ASSIGN_GRAPH_INPUTS = {
  points: 'X',
  centroids: 'C',
  centroidNormsSq: 'cNorm',
  groupShape: 'groupShape',
} as const

/** Output names of the assignment graphs. */
export const ASSIGN_GRAPH_OUTPUTS = {
  labels: 'labels',
  minDistSq: 'minDistSq',
  distSq: 'distSq',
  top2Labels: 'top2Labels',
  top2DistSq: 'top2DistSq',
  groupNearestIndex: 'groupNearestIndex',
  groupNearestDistSq: 'groupNearestDistSq',
  groupMinDistSq: 'groupMinDistSq',
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
  } else if (variant === 'group-two') {
    initializers.push(
      { name: 'zero', dataType: FLOAT, dims: [], floatData: [0] },
      { name: 'huge', dataType: FLOAT, dims: [], floatData: [1e30] },
    )
    nodes.push(
      node('ReduceSumSquare', [points], ['xNorm'], [intsAttr('axes', [1]), intAttr('keepdims', 1)]),
      // The row's nearest centroid (first index on ties) and its value, as in `assign`.
      node(
        'ArgMin',
        ['partial'],
        ['nearest64'],
        [intAttr('axis', 1), intAttr('keepdims', 1), intAttr('select_last_index', 0)],
      ),
      node('Cast', ['nearest64'], [ASSIGN_GRAPH_OUTPUTS.groupNearestIndex], [intAttr('to', INT32)]),
      node('ReduceMin', ['partial'], ['nearestPartial'], [intsAttr('axes', [1]), intAttr('keepdims', 1)]),
      node('Add', ['nearestPartial', 'xNorm'], [ASSIGN_GRAPH_OUTPUTS.groupNearestDistSq]),
      // Every group's minimum over its members except that nearest one (set to 1e30 first).
      node('Mul', ['nearestPartial', 'zero'], ['zeros']),
      node('Add', ['zeros', 'huge'], ['hugeColumn']),
      node('ScatterElements', ['partial', 'nearest64', 'hugeColumn'], ['masked'], [intAttr('axis', 1)]),
      node('Reshape', ['masked', ASSIGN_GRAPH_INPUTS.groupShape], ['grouped']),
      node('ReduceMin', ['grouped'], ['groupMinPartial'], [intsAttr('axes', [1]), intAttr('keepdims', 0)]),
      node('Add', ['groupMinPartial', 'xNorm'], [ASSIGN_GRAPH_OUTPUTS.groupMinDistSq]),
    )
    outputs.push(
      tensorInfo(ASSIGN_GRAPH_OUTPUTS.groupNearestIndex, INT32, ['m', 1]),
      tensorInfo(ASSIGN_GRAPH_OUTPUTS.groupNearestDistSq, FLOAT, ['m', 1]),
      tensorInfo(ASSIGN_GRAPH_OUTPUTS.groupMinDistSq, FLOAT, ['m', 't']),
    )
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
      ...(variant === 'group-two' ? [tensorInfo(ASSIGN_GRAPH_INPUTS.groupShape, INT64, [3])] : []),
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
