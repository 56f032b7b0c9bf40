#!/usr/bin/env bash
# The large-k anchor: Codebook's exact K-means against scikit-learn's Lloyd and FAISS on the same
# clustered data and random-sample init (the issue-22 target: n = 200,000, d = 128, k = 20,000).
#
#   test/bench/anchors/large-k.sh                      # defaults below
#   N=50000 K=5000 ITERS=10 test/bench/anchors/large-k.sh
#   N=1000000 K=100000 ITERS=30 TOL=1e-4 SKIP_LLOYD=1 SKIP_FAISS=1 test/bench/anchors/large-k.sh  # the k = 100,000 target
#
# scikit-learn and FAISS pay n·k·d every iteration, so they are timed for ANCHOR_ITERS iterations
# and multiplied (the output marks those figures "projected"): to ITERS, and to the iterations
# Codebook ran (fewer when its labels stop changing: scikit-learn's Lloyd stops there too, FAISS
# always runs its niter). Codebook runs up to ITERS iterations twice, `--algorithm auto` then `--algorithm lloyd` (as `codebook kmeans` does:
# WORKERS spawned workers × SLOTS map tasks, ONNX kernel); its total is the driver's wall time over
# the iterations (spawn, load and init excluded). The run fails unless auto's final inertia equals
# lloyd's to 1e-6 relative (exact bounds give Lloyd's labels every iteration).
#
# Environment: N (200000), D (128), K (20000), BLOBS (K / 10: the issue-22 figures' data, whose labels
# stop changing after 8 iterations; 2·K blobs, as convergence.sh uses, keeps most points near-tied
# between many centroids for longer), SEED (1), ITERS (15),
# ANCHOR_ITERS (2), WORKERS (1), SLOTS (1), SKIP_LLOYD (1: skip the lloyd run and the check),
# TOL (0: Codebook stops only when no label changes; else the relative inertia change that stops it,
# as `--tol`), SKIP_FAISS (1: time scikit-learn only), OUT (work dir), DTYPE (float32; uint8 writes
# HOG-like bytes, which scikit-learn and FAISS read as float32 — their only path — while Codebook's
# `auto` runs them on the int8 kernel, and a third Codebook run, `auto` with `--kernel onnx`, gives
# the float32 pass on the same bytes: the output's ratios.autoVsCodebookFloat32). Codebook's peak RSS is reported
# for the driver and the largest worker (separate processes) and their sum. Needs Debian's python3-sklearn and python3-faiss (/usr/bin/python3).
set -euo pipefail
N=${N:-200000}
D=${D:-128}
K=${K:-20000}
BLOBS=${BLOBS:-$((K / 10))}
SEED=${SEED:-1}
ITERS=${ITERS:-15}
ANCHOR_ITERS=${ANCHOR_ITERS:-2}
WORKERS=${WORKERS:-1}
SLOTS=${SLOTS:-1}
SKIP_LLOYD=${SKIP_LLOYD:-0}
SKIP_FAISS=${SKIP_FAISS:-0}
TOL=${TOL:-0}
DTYPE=${DTYPE:-float32}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
rm -f "$OUT"/codebook-*.json "$OUT"/anchors.json
source "$HERE/openblas-coretype.sh"
cd "$ROOT/packages/runtime"
npx tsx bench/kmeans/write-bench-data.ts --n "$N" --d "$D" --k "$K" --blobs "$BLOBS" --seed "$SEED" --dtype "$DTYPE" --out "$OUT" >"$OUT/data.json"
# bench ALGORITHM [NAME [KERNEL]]: one Codebook run into codebook-NAME.json (NAME defaults to ALGORITHM).
bench() {
  node --conditions=@codebook/source --import tsx src/cli/entry.ts bench kmeans \
    --data "$OUT/points.npy" --init "$OUT/init.npy" --k "$K" --iterations "$ITERS" --tol "$TOL" \
    --algorithm "$1" --kernel "${3:-auto}" --workers "$WORKERS" --slots "$SLOTS" --json >"$OUT/codebook-${2:-$1}.json"
}
FAISS_FLAG=()
[[ "$SKIP_FAISS" == 1 ]] && FAISS_FLAG=(--skip-faiss)
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) at $(date -u +%T)" >&2
/usr/bin/python3 "$HERE/large_k.py" "$OUT/points.npy" "$OUT/init.npy" "$ANCHOR_ITERS" "${FAISS_FLAG[@]}" >"$OUT/anchors.json"
echo "load after the anchors: $(cut -d' ' -f1-3 /proc/loadavg) at $(date -u +%T)" >&2
bench auto
echo "load after auto: $(cut -d' ' -f1-3 /proc/loadavg) at $(date -u +%T)" >&2
if [[ "$DTYPE" == uint8 ]]; then
  bench auto float32 onnx
  echo "load after auto on float32 (onnx): $(cut -d' ' -f1-3 /proc/loadavg) at $(date -u +%T)" >&2
fi
if [[ "$SKIP_LLOYD" != 1 ]]; then
  bench lloyd
  echo "load after lloyd: $(cut -d' ' -f1-3 /proc/loadavg) at $(date -u +%T)" >&2
fi

node -e '
const fs = require("node:fs")
const dir = process.argv[1]
const read = (f) => JSON.parse(fs.readFileSync(`${dir}/${f}.json`, "utf8"))
const anchors = read("anchors")
const auto = read("codebook-auto")
const lloyd = fs.existsSync(`${dir}/codebook-lloyd.json`) ? read("codebook-lloyd") : null
const float32 = fs.existsSync(`${dir}/codebook-float32.json`) ? read("codebook-float32") : null
const autoMs = auto.totalMs
// The anchors pay the same n·k·d every iteration: their mean per iteration times ITERS, and times
// the iterations Codebook ran.
const iters = Number(process.argv[2])
const project = (a, i) => +((a.msPerIteration * i) / 1000).toFixed(1)
for (const a of [anchors.sklearn, anchors.faiss].filter(Boolean)) {
  a.projectedSecondsAtIters = project(a, iters)
  a.projectedSecondsAtCodebookIterations = project(a, auto.iterations)
}
const out = {
  data: read("data"),
  note: `scikit-learn${anchors.faiss ? " and FAISS" : " (FAISS skipped)"}: timed for ${anchors.timedIterations} iterations, projected to ${iters} and to ${auto.iterations}; Codebook: ${auto.iterations} iterations run (of at most ${iters})`,
  sklearnLloyd: anchors.sklearn,
  faiss: anchors.faiss,
  codebookAuto: { kernel: auto.kernel, heldAs: auto.heldAs, totalMs: Math.round(autoMs), iterations: auto.iterations, distanceFraction: +auto.distanceFraction.toFixed(4), peakRssMB: Math.round(auto.peakRssMB), driverPeakRssMB: Math.round(auto.driverPeakRssMB), workerPeakRssMB: Math.round(auto.workerPeakRssMB), driverPlusWorkerRssMB: Math.round(auto.driverPeakRssMB + auto.workerPeakRssMB), inertia: auto.inertia, perIteration: auto.perIteration.map((p) => ({ ms: p.ms, map: p.stageMs.map, distanceFraction: p.distanceFraction })) },
  ratios: {
    autoVsSklearnAtIters: +(autoMs / (anchors.sklearn.projectedSecondsAtIters * 1000)).toFixed(4),
    autoVsFaissAtIters: anchors.faiss ? +(autoMs / (anchors.faiss.projectedSecondsAtIters * 1000)).toFixed(4) : null,
    autoVsSklearnAtCodebookIterations: +(autoMs / (anchors.sklearn.projectedSecondsAtCodebookIterations * 1000)).toFixed(4),
    autoVsFaissAtCodebookIterations: anchors.faiss ? +(autoMs / (anchors.faiss.projectedSecondsAtCodebookIterations * 1000)).toFixed(4) : null,
  },
}
// Exact runs agree: the same inertia (1e-6 relative) in as many iterations, else print and fail.
const agree = (what, other) => {
  const rel = Math.abs(auto.inertia - other.inertia) / other.inertia
  if (rel <= 1e-6 && auto.iterations === other.iterations) return rel
  console.log(JSON.stringify(out, null, 2))
  console.error(`${what} disagree: inertia ${auto.inertia} vs ${other.inertia} (relative ${rel}), iterations ${auto.iterations} vs ${other.iterations}`)
  process.exit(1)
}
if (float32) {
  out.codebookFloat32 = { kernel: float32.kernel, totalMs: Math.round(float32.totalMs), iterations: float32.iterations, inertia: float32.inertia, perIteration: float32.perIteration.map((p) => p.ms) }
  out.ratios.autoVsCodebookFloat32 = +(autoMs / float32.totalMs).toFixed(4)
  out.ratios.firstPassVsFloat32 = +(auto.perIteration[0].ms / float32.perIteration[0].ms).toFixed(4)
  // The int8 pass gives the exact labels: the same trajectory and inertia as the float32 pass.
  agree("int8 and float32", float32)
}
if (lloyd) {
  out.codebookLloyd = { totalMs: Math.round(lloyd.totalMs), iterations: lloyd.iterations, inertia: lloyd.inertia }
  out.ratios.autoVsCodebookLloyd = +(autoMs / lloyd.totalMs).toFixed(4)
  out.inertiaRelativeDifference = agree("auto and lloyd", lloyd)
}
console.log(JSON.stringify(out, null, 2))
' "$OUT" "$ITERS"
