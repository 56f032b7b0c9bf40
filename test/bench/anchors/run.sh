#!/usr/bin/env bash
# Anchors Codebook's K-means compute against scikit-learn and FAISS on identical data and
# initial centroids, single process each, and prints per-iteration times and ratios
# (Codebook ms/iteration ÷ theirs; < 1 means Codebook is faster).
#
#   N=100000 D=512 K=1000 ITERS=10 test/bench/anchors/run.sh
#
# Environment: N, D, K, ITERS, BLOBS (0 = standard-normal data), SEED, THREADS (ORT intra-op,
# default all cores, as OpenMP uses in scikit-learn and FAISS), ALGOS (Codebook loops), REPEAT
# (1: scikit-learn/FAISS and `codebook bench kmeans` alternate this many times; medians compared),
# OUT (work dir).
# Needs Debian's python3-sklearn and python3-faiss (run with /usr/bin/python3). OPENBLAS_CORETYPE
# is set from the CPU flags unless given (see below).
set -euo pipefail
N=${N:-100000}
D=${D:-512}
K=${K:-1000}
ITERS=${ITERS:-10}
BLOBS=${BLOBS:-0}
SEED=${SEED:-1}
ALGOS=${ALGOS:-reference,lloyd,hamerly,yinyang}
REPEAT=${REPEAT:-1}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
rm -f "$OUT"/runtime-lloyd-*.json "$OUT"/anchors-*.json
THREAD_ARG=()
if [[ -n "${THREADS:-}" ]]; then THREAD_ARG=(--threads "$THREADS"); fi

# OpenBLAS picks its kernels from the CPU model name; on a VM reporting a generic "Intel Xeon
# Processor" it falls back to Prescott (SSE3) kernels and scikit-learn / FAISS run ~2.5x slower.
# Choose the kernels from the CPU flags instead, so the anchors run at their best.
if [[ -z "${OPENBLAS_CORETYPE:-}" ]]; then
  if grep -qw avx512f /proc/cpuinfo; then export OPENBLAS_CORETYPE=SkylakeX
  elif grep -qw avx2 /proc/cpuinfo; then export OPENBLAS_CORETYPE=Haswell; fi
fi
echo "OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-<auto>}" >&2

cd "$ROOT/packages/runtime"
echo "load before: $(uptime)" >&2
npx tsx bench/kmeans/write-bench-data.ts --n "$N" --d "$D" --k "$K" --blobs "$BLOBS" --seed "$SEED" --out "$OUT" >"$OUT/data.json"
run_runtime_lloyd() {
  node --conditions=@codebook/source --import tsx src/cli/entry.ts bench kmeans \
    --data "$OUT/points.npy" --init "$OUT/init.npy" --k "$K" --iterations "$ITERS" --tol 0 \
    --algorithm lloyd --workers 1 --slots 2 --json >"$OUT/runtime-lloyd-$1.json"
}
/usr/bin/python3 "$HERE/anchors.py" "$OUT/points.npy" "$OUT/init.npy" "$ITERS" >"$OUT/anchors-1.json"
npx tsx bench/kmeans/kernel-bench.ts --n "$N" --d "$D" --k "$K" --iters "$ITERS" --blobs "$BLOBS" --seed "$SEED" \
  --algos "$ALGOS" "${THREAD_ARG[@]}" >"$OUT/codebook.json"
# The figure of record: Lloyd as `codebook kmeans` runs it (one spawned worker with 2 map-task
# slots, ONNX kernel, cluster sums kept across iterations), from the same .npy data and init. The
# machine's speed drifts by ±20 % over a minute, so with REPEAT > 1 scikit-learn/FAISS and this
# run alternate REPEAT times and each side's median is compared.
for r in $(seq 2 "$REPEAT"); do
  if [[ ",$ALGOS," == *,lloyd,* ]]; then run_runtime_lloyd "$((r - 1))"; fi
  /usr/bin/python3 "$HERE/anchors.py" "$OUT/points.npy" "$OUT/init.npy" "$ITERS" >"$OUT/anchors-$r.json"
done
if [[ ",$ALGOS," == *,lloyd,* ]]; then run_runtime_lloyd "$REPEAT"; fi
echo "load after: $(uptime)" >&2

node -e '
const fs = require("node:fs")
const [dir, repeat] = [process.argv[1], Number(process.argv[2])]
const read = (f) => JSON.parse(fs.readFileSync(`${dir}/${f}.json`, "utf8"))
const median = (v) => [...v].sort((a, b) => a - b)[(v.length - 1) >> 1]
const [data, codebook] = [read("data"), read("codebook")]
if (data.checksum !== codebook.checksum) throw new Error(`data mismatch: written ${data.checksum}, benched ${codebook.checksum}`)
const reps = Array.from({ length: repeat }, (_, i) => i + 1)
const anchorRuns = reps.map((r) => read(`anchors-${r}`))
const anchors = { ...anchorRuns[0], sklearn: { ...anchorRuns[0].sklearn, msPerIteration: median(anchorRuns.map((a) => a.sklearn.msPerIteration)) }, faiss: { ...anchorRuns[0].faiss, msPerIteration: median(anchorRuns.map((a) => a.faiss.msPerIteration)) } }
if (repeat > 1) anchors.perRepetition = anchorRuns.map((a) => ({ sklearnMs: a.sklearn.msPerIteration, faissMs: a.faiss.msPerIteration }))
const ratios = {}
const vs = (ms) => ({ vsSklearn: +(ms / anchors.sklearn.msPerIteration).toFixed(2), vsFaiss: +(ms / anchors.faiss.msPerIteration).toFixed(2) })
for (const loop of ["lloydOrt", "hamerly", "yinyang"]) {
  if (!codebook[loop]) continue
  ratios[loop] = { msPerIteration: codebook[loop].msPerIteration, ...vs(codebook[loop].msPerIteration) }
}
let runtime = null
if (fs.existsSync(`${dir}/runtime-lloyd-1.json`)) {
  runtime = reps.map((r) => read(`runtime-lloyd-${r}`))
  // Mean over the iterations, as the scikit-learn and FAISS figures are (fit time / iterations).
  const means = runtime.map((x) => Math.round(x.totalMs / x.iterations))
  ratios.runtimeLloyd = { msPerIteration: median(means), perRepetition: means, ...vs(median(means)) }
}
console.log(JSON.stringify({ anchors, codebook, runtime, ratios }, null, 2))
' "$OUT" "$REPEAT"
