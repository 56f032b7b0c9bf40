#!/usr/bin/env bash
# Anchors Codebook's K-means compute against scikit-learn and FAISS on identical data and
# initial centroids, single process each, and prints per-iteration times and ratios
# (Codebook ms/iteration ÷ theirs; < 1 means Codebook is faster).
#
#   N=100000 D=512 K=1000 ITERS=10 test/bench/anchors/run.sh
#
# Environment: N, D, K, ITERS, BLOBS (0 = standard-normal data), SEED, THREADS (ORT intra-op,
# default all cores, as OpenMP uses in scikit-learn and FAISS), ALGOS (Codebook loops), OUT (work dir).
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
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
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
/usr/bin/python3 "$HERE/anchors.py" "$OUT/points.npy" "$OUT/init.npy" "$ITERS" >"$OUT/anchors.json"
npx tsx bench/kmeans/kernel-bench.ts --n "$N" --d "$D" --k "$K" --iters "$ITERS" --blobs "$BLOBS" --seed "$SEED" \
  --algos "$ALGOS" "${THREAD_ARG[@]}" >"$OUT/codebook.json"
# The figure of record: Lloyd as `codebook kmeans` runs it (one spawned worker with 2 map-task
# slots, ONNX kernel, cluster sums kept across iterations), from the same .npy data and init.
if [[ ",$ALGOS," == *,lloyd,* ]]; then
  node --conditions=@codebook/source --import tsx src/formats/test-support/run-cli.ts bench kmeans \
    --data "$OUT/points.npy" --init "$OUT/init.npy" --k "$K" --iterations "$ITERS" --tol 0 \
    --algorithm lloyd --workers 1 --slots 2 --json >"$OUT/runtime-lloyd.json"
else
  echo '{}' >"$OUT/runtime-lloyd.json"
fi
echo "load after: $(uptime)" >&2

node -e '
const fs = require("node:fs")
const [data, anchors, codebook, runtime] = ["data", "anchors", "codebook", "runtime-lloyd"].map((f) => JSON.parse(fs.readFileSync(`${process.argv[1]}/${f}.json`, "utf8")))
if (data.checksum !== codebook.checksum) throw new Error(`data mismatch: written ${data.checksum}, benched ${codebook.checksum}`)
const ratios = {}
for (const loop of ["lloydOrt", "hamerly", "yinyang"]) {
  if (!codebook[loop]) continue
  const ms = codebook[loop].msPerIteration
  ratios[loop] = { msPerIteration: ms, vsSklearn: +(ms / anchors.sklearn.msPerIteration).toFixed(2), vsFaiss: +(ms / anchors.faiss.msPerIteration).toFixed(2) }
}
if (runtime.totalMs !== undefined) {
  // Mean over the iterations, as the scikit-learn and FAISS figures are (fit time / iterations).
  const ms = Math.round(runtime.totalMs / runtime.iterations)
  ratios.runtimeLloyd = { msPerIteration: ms, iterations: runtime.iterations, vsSklearn: +(ms / anchors.sklearn.msPerIteration).toFixed(2), vsFaiss: +(ms / anchors.faiss.msPerIteration).toFixed(2) }
}
console.log(JSON.stringify({ anchors, codebook, runtime, ratios }, null, 2))
' "$OUT"
