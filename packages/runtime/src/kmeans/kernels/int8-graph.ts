import type { onnx as OnnxTypes } from 'onnx-proto'
import onnxProto from 'onnx-proto'
import { tensorInfo } from './onnx-graph.ts'

// onnx-proto is CommonJS with `module.exports = root`; Node only exposes it as the default export.
const { onnx } = onnxProto

/** Input names of the int8 candidate graph ({@link buildInt8CandidateModel}). */
export const INT8_GRAPH_INPUTS = {
  /** uint8 [m, d]: a block of points, as stored. */
  points: 'X',
  /** int64 [1]: how many smallest scores each row returns (1 ≤ count ≤ k). */
  count: 'count',
  /** int64 [1]: how many of the smallest group minima are searched (≥ ⌈count / width⌉ not needed; = min(count, groups)). */
  groupCount: 'groupCount',
} as const

/** Output names of the int8 candidate graph. */
export const INT8_GRAPH_OUTPUTS = {
  /** float32 [m, count]: the smallest scores of each row, ascending. */
  values: 'topValues',
  /** int32 [m, count]: where each came from, an index into the gathered groups (group slot · width + column). */
  slots: 'topSlots',
  /** int32 [m, groupCount]: the gathered groups, by group index. */
  groups: 'topGroups',
} as const

/** The constants of one centroid set, baked into the graph (so onnxruntime packs them once). */
export interface Int8GraphConstants {
  d: number
  /** Columns of the code matrix: k padded to groups · width. */
  paddedK: number
  /** Columns per group of the two-level reduction (≥ 2). */
  width: number
  /** Codes, d × paddedK row-major (column j is centroid j), each in [−levels, levels]. */
  codes: Int8Array
  /** Per column: its zero point (the code of 0). */
  zeroPoints: Int8Array
  /** Per column: the factor of its integer dot product, −2·s_j (float32-exact). */
  columnScales: Float32Array
  /** Per column: ‖c_j‖² as float32 (padding columns: a huge finite value). */
  bias: Float32Array
}

// Opset 17 as in onnx-graph.ts; MatMulIntegerToFloat is a contrib op of onnxruntime (com.microsoft).
const OPSET = 17
const IR_VERSION = 8
const MS_DOMAIN = 'com.microsoft'

const { FLOAT, INT8, INT32, INT64, UINT8 } = onnx.TensorProto.DataType
const A = onnx.AttributeProto.AttributeType

function intAttr(name: string, i: number): OnnxTypes.IAttributeProto {
  return { name, type: A.INT, i }
}

function bytesOf(a: Int8Array | Float32Array): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength)
}

/**
 * Builds the int8 candidate graph of one centroid set: per point x (uint8) and centroid j the
 * score ‖c_j‖² − 2·s_j·Σ_t x_t (q_jt − z_j), i.e. ‖c_j‖² − 2 x·ĉ_j for the dequantised centroid
 * ĉ_j, and each row's `count` smallest scores with their columns.
 *
 * The product is onnxruntime's `MatMulIntegerToFloat` (u8 × s8 → s32, exact, then scaled and
 * biased in float32) with the codes as an initializer: onnxruntime packs a constant B once per
 * session (measured 4,096 × 512 × 20,000: 0.49 s against 1.6 s with the codes fed as an input).
 * The row reduction is two-level, as in `onnx-graph.ts`: ReduceMin over groups of `width`
 * columns, then TopK over the gathered best `groupCount` groups only (a TopK over whole rows of
 * k scores costs several times the ReduceMin). Returning `count` values per row, never m × k,
 * keeps the JS side O(m · count).
 */
export function buildInt8CandidateModel(c: Int8GraphConstants): Uint8Array {
  const { d, paddedK, width } = c
  const groups = paddedK / width
  if (!Number.isInteger(groups) || groups < 1 || width < 1)
    throw new Error(`int8 graph: paddedK ${paddedK} is not a multiple of width ${width}`)
  const nodes: OnnxTypes.INodeProto[] = [
    {
      opType: 'MatMulIntegerToFloat',
      domain: MS_DOMAIN,
      // A, B, a_scale, b_scale, a_zero_point (none: x is used as stored), b_zero_point, bias.
      input: [INT8_GRAPH_INPUTS.points, 'codes', 'one', 'columnScales', '', 'zeroPoints', 'bias'],
      output: ['score'],
      name: 'score',
    },
    { opType: 'Reshape', input: ['score', 'groupShape'], output: ['grouped'], name: 'grouped' },
    {
      opType: 'ReduceMin',
      input: ['grouped'],
      output: ['groupMin'],
      name: 'groupMin',
      attribute: [{ name: 'axes', type: A.INTS, ints: [2] }, intAttr('keepdims', 0)],
    },
    {
      opType: 'TopK',
      input: ['groupMin', INT8_GRAPH_INPUTS.groupCount],
      output: ['bestGroupMin', 'bestGroups64'],
      name: 'bestGroups',
      attribute: [intAttr('axis', 1), intAttr('largest', 0), intAttr('sorted', 1)],
    },
    { opType: 'Unsqueeze', input: ['bestGroups64', 'axis2'], output: ['bestGroupsIndex'], name: 'unsq' },
    {
      opType: 'GatherND',
      input: ['grouped', 'bestGroupsIndex'],
      output: ['bestRows'],
      name: 'bestRows',
      attribute: [intAttr('batch_dims', 1)],
    },
    { opType: 'Reshape', input: ['bestRows', 'flatShape'], output: ['candidates'], name: 'candidates' },
    {
      opType: 'TopK',
      input: ['candidates', INT8_GRAPH_INPUTS.count],
      output: [INT8_GRAPH_OUTPUTS.values, 'topSlots64'],
      name: 'top',
      attribute: [intAttr('axis', 1), intAttr('largest', 0), intAttr('sorted', 1)],
    },
    // int64 indices would arrive as BigInt64Arrays; int32 is what the rest of the runtime uses.
    {
      opType: 'Cast',
      input: ['topSlots64'],
      output: [INT8_GRAPH_OUTPUTS.slots],
      name: 'castSlots',
      attribute: [intAttr('to', INT32)],
    },
    {
      opType: 'Cast',
      input: ['bestGroups64'],
      output: [INT8_GRAPH_OUTPUTS.groups],
      name: 'castGroups',
      attribute: [intAttr('to', INT32)],
    },
  ]
  const initializer: OnnxTypes.ITensorProto[] = [
    { name: 'codes', dataType: INT8, dims: [d, paddedK], rawData: bytesOf(c.codes) },
    { name: 'zeroPoints', dataType: INT8, dims: [paddedK], rawData: bytesOf(c.zeroPoints) },
    { name: 'columnScales', dataType: FLOAT, dims: [paddedK], rawData: bytesOf(c.columnScales) },
    { name: 'bias', dataType: FLOAT, dims: [paddedK], rawData: bytesOf(c.bias) },
    { name: 'one', dataType: FLOAT, dims: [], floatData: [1] },
    { name: 'groupShape', dataType: INT64, dims: [3], int64Data: [0, groups, width] },
    { name: 'flatShape', dataType: INT64, dims: [2], int64Data: [0, -1] },
    { name: 'axis2', dataType: INT64, dims: [1], int64Data: [2] },
  ]
  return encodeModel({
    name: `codebook_int8_candidates_d${d}`,
    node: nodes,
    input: [
      tensorInfo(INT8_GRAPH_INPUTS.points, UINT8, ['m', d]),
      tensorInfo(INT8_GRAPH_INPUTS.count, INT64, [1]),
      tensorInfo(INT8_GRAPH_INPUTS.groupCount, INT64, [1]),
    ],
    output: [
      tensorInfo(INT8_GRAPH_OUTPUTS.values, FLOAT, ['m', 'count']),
      tensorInfo(INT8_GRAPH_OUTPUTS.slots, INT32, ['m', 'count']),
      tensorInfo(INT8_GRAPH_OUTPUTS.groups, INT32, ['m', 'groupCount']),
    ],
    initializer,
  })
}

/** The model bytes of one graph (both opsets: the contrib domain costs nothing when unused). */
function encodeModel(graph: OnnxTypes.IGraphProto): Uint8Array {
  const model = onnx.ModelProto.create({
    irVersion: IR_VERSION,
    opsetImport: [
      { domain: '', version: OPSET },
      { domain: MS_DOMAIN, version: 1 },
    ],
    producerName: 'codebook',
    graph: onnx.GraphProto.create(graph),
  })
  return onnx.ModelProto.encode(model).finish()
}

/**
 * A one-node graph: MatMulInteger of uint8 X [m, d] with constant int8 codes [d, k] (no zero
 * points) → int32 [m, k], `Y`. Used to probe whether this machine's u8 × s8 kernel saturates
 * (see `int8-kernel.ts`, `probeInt8Saturation`) on the same packed-constant path as the real graph.
 */
export function buildInt8ProductModel(d: number, k: number, codes: Int8Array): Uint8Array {
  return encodeModel({
    name: 'codebook_int8_product',
    node: [{ opType: 'MatMulInteger', input: ['X', 'codes'], output: ['Y'], name: 'Y' }],
    input: [tensorInfo('X', UINT8, ['m', d])],
    output: [tensorInfo('Y', INT32, ['m', k])],
    initializer: [{ name: 'codes', dataType: INT8, dims: [d, k], rawData: bytesOf(codes) }],
  })
}
