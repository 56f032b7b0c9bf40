import type { onnx as OnnxTypes } from 'onnx-proto'
import onnxProto from 'onnx-proto'

// onnx-proto is CommonJS with `module.exports = root`; Node only exposes it as the default export.
const { onnx } = onnxProto

/**
 * Which outputs a built assignment graph produces.
 * - `assign`: `labels` [m] int32 (argmin, first index on ties) and `minDistSq` [m] float32.
 * - `distances`: `distSq` [m, k] float32, the whole block of squared distances (for bound
 *   initialisation in the accelerated algorithms and for centroid–centroid distances).
 * - `nearest-two`: `top2Labels` [m] int32, the nearest centroid, `top2DistSq` [m, 2] float32,
 *   the squared distances to the nearest and second nearest (needs k ≥ 2), and `pointNormSq` [m]
 *   (‖x‖², which callers need for error bounds). Hamerly's re-scans
 *   need only these, and moving 2 values per row instead of k is what makes them BLAS-speed.
 * - `assign-grouped`, `nearest-two-grouped`: the same outputs by a two-level reduction (extra
 *   input `groupShape` = [0, G, w]: the k columns, padded, as G groups of w contiguous ones). A
 *   vectorised ReduceMin gives each group's minimum; the exact argmin (or two smallest) is then
 *   taken only over the group minima and inside the best group. ORT's ArgMin / TopK over a whole
 *   row cost 2–3× its ReduceMin; measured on 100k × 128 points: `assign` 257 → 180 ms at
 *   k = 1,000 but 45 → 48 ms at k = 128 (the extra small ops cost more than they save), and
 *   `nearest-two` 231 → 208 ms at k = 1,000, slower below ~800 (see `groupLayout`).
 * - `group-two`: the k centroid rows are laid out member-major for t groups of G members (row
 *   p·t + q is member p of group q; extra input `groupShape` = [0, G, t]): `groupNearestIndex`
 *   [m, 1] int32 and `groupNearestDistSq` [m, 1], the nearest row (as `assign`), and
 *   `groupMinDistSq` [m, t], every group's minimum over its rows except that nearest one.
 *   Yinyang's exact group bounds from t + 1 values per row instead of k; member-major makes the
 *   group minimum a reduction over the middle axis (contiguous t-vectors), and masking one entry
 *   per row (ScatterElements) replaces a TopK over millions of tiny rows (~2× slower).
 * - `nearest-excluding`: extra input `exclude` [m, 1] int32 (a column of C per row; k − 1 may
 *   be a padding row to exclude nothing); output `excludedMinPartial` [m], the smallest
 *   ‖c‖² − 2x·c over the other columns, *without* ‖x‖² (the caller has it). Hamerly's moved-set
 *   pass: a few dozen centroids against every point, where TopK and ReduceSumSquare(X) would
 *   cost 3× the Gemm; masking one entry and one ReduceMin cost a fraction of it.
 */
export type AssignGraphVariant =
  | 'assign'
  | 'assign-grouped'
  | 'distances'
  | 'nearest-two'
  | 'nearest-two-grouped'
  | 'group-two'
  | 'nearest-excluding'
  | 'nearest-m'
  | 'list-dots'
  | 'within'

/** Input names of every assignment graph: X [m, d], C [k, d], cNorm [k] (‖c‖², computed by the caller). */
export const ASSIGN_GRAPH_INPUTS = {
  points: 'X',
  centroids: 'C',
  centroidNormsSq: 'cNorm',
  groupShape: 'groupShape',
  exclude: 'exclude',
  count: 'count',
} as const

/**
 * Inputs of the `list-dots` graph ({@link buildListDotsModel}): X [n, d] and C [k, d] whole, and
 * per group g the rows of its P points (`pointIndex` [G, P]) and of its L centroids (`listIndex`
 * [G, L]), both int32 indices into X and C.
 */
export const LIST_DOTS_INPUTS = {
  points: 'X',
  centroids: 'C',
  pointIndex: 'pointIndex',
  listIndex: 'listIndex',
} as const

/** Output of the `list-dots` graph: `listDots` [G, L, P], entry (g, l, p) = C[listIndex[g, l]] · X[pointIndex[g, p]]. */
export const LIST_DOTS_OUTPUT = 'listDots'

/** Extra input of the `within` graph ({@link buildWithinModel}): a threshold per row of X, [m, 1], or per row and column group, [m, groups]. */
export const WITHIN_THRESHOLD = 'threshold'

/** Outputs of the `within` graph: the (row, group) pairs kept, [2, nnz] int32 row-major, and each group's w values ‖c‖² − 2x·c. */
export const WITHIN_OUTPUTS = { pairs: 'withinPairs', partial: 'withinPartial' } as const

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
  pointNormSq: 'pointNormSq',
  excludedMinPartial: 'excludedMinPartial',
  nearestMIndex: 'nearestMIndex',
  nearestMDistSq: 'nearestMDistSq',
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

/** A tensor's value info: its element type and shape (a string dimension is symbolic); the int8 graph uses it too. */
export function tensorInfo(
  name: string,
  elemType: number,
  dims: Array<string | number>,
): OnnxTypes.IValueInfoProto {
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

/** ConstantOfShape's value: a masked entry, far above any squared distance yet finite. */
const hugeValue: OnnxTypes.IAttributeProto = {
  name: 'value',
  type: A.TENSOR,
  t: { dataType: FLOAT, dims: [1], floatData: [1e30] },
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
 * Gemm's bias input, broadcast over rows), then the reductions along each row (see
 * {@link AssignGraphVariant}), and ReduceSumSquare(X) adds ‖x‖². Results can be slightly
 * negative through cancellation; the caller clamps them at 0.
 */
export function buildAssignModel(d: number, variant: AssignGraphVariant): Uint8Array {
  if (variant === 'list-dots') return buildListDotsModel(d)
  if (variant === 'within') return buildWithinModel(d)
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
  const flat = (input: string, output: string) => node('Reshape', [input, 'flat'], [output])
  const firstColumn = (input: string, output: string) =>
    node('Slice', [input, 'zero1', 'one1', 'one1'], [output])
  // largest = 0, sorted = 1: the two smallest, nearest first; equal values keep the lower index first.
  const topTwo = (input: string, values: string, indices: string) =>
    node(
      'TopK',
      [input, 'two1'],
      [values, indices],
      [intAttr('axis', 1), intAttr('largest', 0), intAttr('sorted', 1)],
    )
  // select_last_index = 0: ties go to the lowest index, as in the reference kernel.
  const argMin = (input: string, output: string, keepdims: number) =>
    node(
      'ArgMin',
      [input],
      [output],
      [intAttr('axis', 1), intAttr('keepdims', keepdims), intAttr('select_last_index', 0)],
    )
  if (variant === 'nearest-excluding') {
    nodes.push(
      node('Shape', [ASSIGN_GRAPH_INPUTS.exclude], ['excludeShape']),
      node('ConstantOfShape', ['excludeShape'], ['hugeColumn'], [hugeValue]),
      node(
        'ScatterElements',
        ['partial', ASSIGN_GRAPH_INPUTS.exclude, 'hugeColumn'],
        ['masked'],
        [intAttr('axis', 1)],
      ),
      node(
        'ReduceMin',
        ['masked'],
        [ASSIGN_GRAPH_OUTPUTS.excludedMinPartial],
        [intsAttr('axes', [1]), intAttr('keepdims', 0)],
      ),
    )
    outputs.push(tensorInfo(ASSIGN_GRAPH_OUTPUTS.excludedMinPartial, FLOAT, ['m']))
  } else if (variant === 'nearest-m') {
    // The `count` smallest of each row, ascending (TopK: equal values keep the lower index first).
    nodes.push(
      node('ReduceSumSquare', [points], ['xNorm'], [intsAttr('axes', [1]), intAttr('keepdims', 1)]),
      node(
        'TopK',
        ['partial', ASSIGN_GRAPH_INPUTS.count],
        ['nearestMPartial', 'nearestM64'],
        [intAttr('axis', 1), intAttr('largest', 0), intAttr('sorted', 1)],
      ),
      node('Cast', ['nearestM64'], [ASSIGN_GRAPH_OUTPUTS.nearestMIndex], [intAttr('to', INT32)]),
      node('Add', ['nearestMPartial', 'xNorm'], [ASSIGN_GRAPH_OUTPUTS.nearestMDistSq]),
    )
    outputs.push(
      tensorInfo(ASSIGN_GRAPH_OUTPUTS.nearestMIndex, INT32, ['m', 'M']),
      tensorInfo(ASSIGN_GRAPH_OUTPUTS.nearestMDistSq, FLOAT, ['m', 'M']),
    )
  } else if (variant !== 'distances' && variant !== 'group-two') {
    initializers.push(
      { name: 'flat', dataType: INT64, dims: [1], int64Data: [-1] },
      { name: 'zero1', dataType: INT64, dims: [1], int64Data: [0] },
      { name: 'one1', dataType: INT64, dims: [1], int64Data: [1] },
      { name: 'two1', dataType: INT64, dims: [1], int64Data: [2] },
      { name: 'widthIndex', dataType: INT64, dims: [], int64Data: [2] },
    )
    nodes.push(node('ReduceSumSquare', [points], ['xNorm'], [intsAttr('axes', [1]), intAttr('keepdims', 0)]))
    const assign = variant === 'assign' || variant === 'assign-grouped'
    const grouped = variant === 'assign-grouped' || variant === 'nearest-two-grouped'
    // Each branch leaves `label64` [m] and `nearestPartial` (assign: [m]; nearest-two: [m, 2] with the second).
    if (!grouped && assign) {
      nodes.push(
        argMin('partial', 'label64', 0),
        node('ReduceMin', ['partial'], ['nearestPartial'], [intsAttr('axes', [1]), intAttr('keepdims', 0)]),
      )
    } else if (!grouped) {
      nodes.push(
        topTwo('partial', 'nearestPartial', 'top2Index'),
        firstColumn('top2Index', 'labelColumn'),
        flat('labelColumn', 'label64'),
      )
    } else {
      nodes.push(
        node('Reshape', ['partial', ASSIGN_GRAPH_INPUTS.groupShape], ['grouped']),
        node('ReduceMin', ['grouped'], ['groupMin'], [intsAttr('axes', [2]), intAttr('keepdims', 0)]),
        node('Gather', [ASSIGN_GRAPH_INPUTS.groupShape, 'widthIndex'], ['width'], [intAttr('axis', 0)]),
      )
      if (assign) {
        nodes.push(
          argMin('groupMin', 'bestGroup', 1),
          node('GatherND', ['grouped', 'bestGroup'], ['bestRow'], [intAttr('batch_dims', 1)]),
          argMin('bestRow', 'inGroup', 0),
          node(
            'ReduceMin',
            ['groupMin'],
            ['nearestPartial'],
            [intsAttr('axes', [1]), intAttr('keepdims', 0)],
          ),
        )
      } else {
        // The second nearest is the best group's second value or the other groups' minimum. Each
        // "second" is the minimum after masking the first (ScatterElements of one huge value per
        // row): TopK over millions of 32-wide rows cost twice these ArgMin / ReduceMin pairs.
        const minOf = (input: string, output: string) =>
          node('ReduceMin', [input], [output], [intsAttr('axes', [1]), intAttr('keepdims', 1)])
        const maskAt = (input: string, index: string, output: string) =>
          node('ScatterElements', [input, index, 'hugeColumn'], [output], [intAttr('axis', 1)])
        nodes.push(
          argMin('groupMin', 'bestGroup', 1),
          node('Shape', ['bestGroup'], ['columnShape']),
          node('ConstantOfShape', ['columnShape'], ['hugeColumn'], [hugeValue]),
          maskAt('groupMin', 'bestGroup', 'otherGroups'),
          minOf('otherGroups', 'groupSecond'),
          node('GatherND', ['grouped', 'bestGroup'], ['bestRow'], [intAttr('batch_dims', 1)]),
          argMin('bestRow', 'inGroupColumn', 1),
          flat('inGroupColumn', 'inGroup'),
          minOf('bestRow', 'rowFirst'),
          maskAt('bestRow', 'inGroupColumn', 'otherInGroup'),
          minOf('otherInGroup', 'rowSecond'),
          node('Min', ['rowSecond', 'groupSecond'], ['secondPartial']),
          node('Concat', ['rowFirst', 'secondPartial'], ['nearestPartial'], [intAttr('axis', 1)]),
        )
      }
      nodes.push(
        flat('bestGroup', 'bestGroupFlat'),
        node('Mul', ['bestGroupFlat', 'width'], ['groupStart']),
        node('Add', ['groupStart', 'inGroup'], ['label64']),
      )
    }
    const label = assign ? ASSIGN_GRAPH_OUTPUTS.labels : ASSIGN_GRAPH_OUTPUTS.top2Labels
    const distance = assign ? ASSIGN_GRAPH_OUTPUTS.minDistSq : ASSIGN_GRAPH_OUTPUTS.top2DistSq
    nodes.push(
      // int64 labels would arrive as a BigInt64Array; int32 is what the rest of the runtime uses.
      node('Cast', ['label64'], [label], [intAttr('to', INT32)]),
      ...(assign
        ? [node('Add', ['nearestPartial', 'xNorm'], [distance])]
        : [
            node('Unsqueeze', ['xNorm', 'one1'], ['xNormColumn']),
            node('Add', ['nearestPartial', 'xNormColumn'], [distance]),
          ]),
    )
    outputs.push(tensorInfo(label, INT32, ['m']), tensorInfo(distance, FLOAT, assign ? ['m'] : ['m', 2]))
    if (!assign) {
      nodes.push(node('Identity', ['xNorm'], [ASSIGN_GRAPH_OUTPUTS.pointNormSq]))
      outputs.push(tensorInfo(ASSIGN_GRAPH_OUTPUTS.pointNormSq, FLOAT, ['m']))
    }
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
  }
  const graph = onnx.GraphProto.create({
    name: `codebook_${variant}_d${d}`,
    node: nodes,
    input: [
      tensorInfo(points, FLOAT, ['m', d]),
      tensorInfo(centroids, FLOAT, ['k', d]),
      tensorInfo(centroidNormsSq, FLOAT, ['k']),
      ...(variant === 'group-two' || variant.endsWith('-grouped')
        ? [tensorInfo(ASSIGN_GRAPH_INPUTS.groupShape, INT64, [3])]
        : []),
      ...(variant === 'nearest-excluding' ? [tensorInfo(ASSIGN_GRAPH_INPUTS.exclude, INT32, ['m', 1])] : []),
      ...(variant === 'nearest-m' ? [tensorInfo(ASSIGN_GRAPH_INPUTS.count, INT64, [1])] : []),
    ],
    output: outputs,
    // Only the constants this variant uses (ORT warns about the others).
    initializer: initializers.filter((t) => nodes.some((nd) => nd.input?.includes(t.name as string))),
  })
  return encodeModel(graph)
}

/**
 * The `list-dots` graph for dimension d: G small dot-product blocks in one batched MatMul. Each
 * group gathers its P points and its L centroids (`Gather` inside ORT: the caller passes X and C
 * whole, plus int32 row indices) and multiplies them, C_g [L, d] × X_gᵀ [d, P] → [G, L, P].
 * Hamerly's neighbourhood re-scan: the points sharing a centroid share its neighbour list, so
 * their distances to that list are one small Gemm instead of per-point TypeScript loops. Only
 * the dot products leave ORT; the caller adds the norms in float64 (the float32 dot is within the
 * expanded distance's error bound).
 */
export function buildListDotsModel(d: number): Uint8Array {
  const { points, centroids, pointIndex, listIndex } = LIST_DOTS_INPUTS
  const nodes = [
    node('Gather', [points, pointIndex], ['groupPoints'], [intAttr('axis', 0)]),
    node('Transpose', ['groupPoints'], ['groupPointsT'], [intsAttr('perm', [0, 2, 1])]),
    node('Gather', [centroids, listIndex], ['groupCentroids'], [intAttr('axis', 0)]),
    node('MatMul', ['groupCentroids', 'groupPointsT'], [LIST_DOTS_OUTPUT]),
  ]
  const graph = onnx.GraphProto.create({
    name: `codebook_list-dots_d${d}`,
    node: nodes,
    input: [
      tensorInfo(points, FLOAT, ['n', d]),
      tensorInfo(centroids, FLOAT, ['k', d]),
      tensorInfo(pointIndex, INT32, ['G', 'P']),
      tensorInfo(listIndex, INT32, ['G', 'L']),
    ],
    output: [tensorInfo(LIST_DOTS_OUTPUT, FLOAT, ['G', 'L', 'P'])],
  })
  return encodeModel(graph)
}

/**
 * The `within` graph for dimension d: per row of X the groups of w contiguous columns (input
 * `groupShape` = [0, G, w], C padded to G·w rows) holding a value ‖c‖² − 2x·c below the row's
 * `threshold` (`Reshape` + `ReduceMin` over each group, `Less`, `NonZero`: row-major, so each
 * row's groups are contiguous and ascending) and those groups' w values (`GatherND`); the caller
 * keeps the columns below the threshold. Hamerly's centroid neighbourhoods: each centroid's
 * neighbours within twice its points' reach. A TopK of fixed K over every row of k cost ~2× the
 * Gemm at k = 20,000 and returned mostly entries past the reach (K = 261 for lists of ~44 on
 * average); `Less` + `NonZero` over the whole row ~1.4× (single-threaded), over group minima
 * (w = 32) about the Gemm alone.
 */
export function buildWithinModel(d: number): Uint8Array {
  const { points, centroids, centroidNormsSq } = ASSIGN_GRAPH_INPUTS
  const nodes = [
    node(
      'Gemm',
      [points, centroids, centroidNormsSq],
      ['partial'],
      [floatAttr('alpha', -2), floatAttr('beta', 1), intAttr('transB', 1)],
    ),
    node('Reshape', ['partial', ASSIGN_GRAPH_INPUTS.groupShape], ['grouped']),
    node('ReduceMin', ['grouped'], ['groupMin'], [intsAttr('axes', [2]), intAttr('keepdims', 0)]),
    node('Less', ['groupMin', WITHIN_THRESHOLD], ['inside']),
    node('NonZero', ['inside'], ['pairs64']),
    node('Cast', ['pairs64'], [WITHIN_OUTPUTS.pairs], [intAttr('to', INT32)]),
    node('Transpose', ['pairs64'], ['pairRows'], [intsAttr('perm', [1, 0])]),
    node('GatherND', ['grouped', 'pairRows'], [WITHIN_OUTPUTS.partial]),
  ]
  const graph = onnx.GraphProto.create({
    name: `codebook_within_d${d}`,
    node: nodes,
    input: [
      tensorInfo(points, FLOAT, ['m', d]),
      tensorInfo(centroids, FLOAT, ['k', d]),
      tensorInfo(centroidNormsSq, FLOAT, ['k']),
      tensorInfo(WITHIN_THRESHOLD, FLOAT, ['m', 'thresholdColumns']),
      tensorInfo(ASSIGN_GRAPH_INPUTS.groupShape, INT64, [3]),
    ],
    output: [
      tensorInfo(WITHIN_OUTPUTS.pairs, INT32, [2, 'nnz']),
      tensorInfo(WITHIN_OUTPUTS.partial, FLOAT, ['nnz', 'w']),
    ],
  })
  return encodeModel(graph)
}

/** The serialized model around `graph` (opset {@link OPSET}, IR {@link IR_VERSION}). */
function encodeModel(graph: OnnxTypes.IGraphProto): Uint8Array {
  const model = onnx.ModelProto.create({
    irVersion: IR_VERSION,
    opsetImport: [{ domain: '', version: OPSET }],
    producerName: 'codebook',
    graph,
  })
  return onnx.ModelProto.encode(model).finish()
}
