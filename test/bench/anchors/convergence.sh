#!/usr/bin/env bash
# Time to convergence, Codebook against scikit-learn, on the same clustered data and initial
# centroids, under the same stopping rule (relative inertia change <= TOL, see convergence.py).
# Each repetition runs scikit-learn and then `codebook bench kmeans` back to back; prints every
# repetition and the median ratio (Codebook total ms / scikit-learn's; < 1: Codebook is faster).
#
#   N=100000 D=128 K=1000 BLOBS=2000 REPEAT=3 test/bench/anchors/convergence.sh
#
# Environment: N, D, K, BLOBS, SEED, TOL (1e-4), ALGORITHM (auto), REPEAT (3), OUT (work dir).
# Codebook runs as `codebook kmeans` does (one spawned worker, one map task, ONNX kernel) from
# source; its total is the driver's wall time over all iterations (spawn, load and init excluded;
# scikit-learn's fit time includes its input checks and data centring).
set -euo pipefail
N=${N:-100000}
D=${D:-128}
K=${K:-1000}
BLOBS=${BLOBS:-2000}
SEED=${SEED:-1}
TOL=${TOL:-1e-4}
ALGORITHM=${ALGORITHM:-auto}
REPEAT=${REPEAT:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
source "$HERE/openblas-coretype.sh"
cd "$ROOT/packages/runtime"
npx tsx bench/kmeans/write-bench-data.ts --n "$N" --d "$D" --k "$K" --blobs "$BLOBS" --seed "$SEED" --out "$OUT" >"$OUT/data.json"
for r in $(seq 1 "$REPEAT"); do
  echo "repetition $r, load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  /usr/bin/python3 "$HERE/convergence.py" "$OUT/points.npy" "$OUT/init.npy" "$TOL" >"$OUT/sklearn-$r.json"
  node --conditions=@codebook/source --import tsx src/cli/entry.ts bench kmeans \
    --data "$OUT/points.npy" --init "$OUT/init.npy" --k "$K" --iterations 300 --tol "$TOL" \
    --algorithm "$ALGORITHM" --workers 1 --slots 1 --json >"$OUT/codebook-$r.json"
done
node -e '
const fs = require("node:fs")
const [dir, repeat] = [process.argv[1], Number(process.argv[2])]
const reps = []
for (let r = 1; r <= repeat; r++) {
  const s = JSON.parse(fs.readFileSync(`${dir}/sklearn-${r}.json`, "utf8"))
  const c = JSON.parse(fs.readFileSync(`${dir}/codebook-${r}.json`, "utf8"))
  reps.push({
    sklearnMs: Math.round(s.sklearn.seconds * 1000), sklearnIterations: s.iterations, sklearnInertia: s.sklearn.inertia,
    codebookMs: Math.round(c.totalMs), codebookIterations: c.iterations, codebookInertia: c.inertia,
    distanceFraction: +c.distanceFraction.toFixed(4),
    ratio: +(c.totalMs / (s.sklearn.seconds * 1000)).toFixed(3),
    inertiaDiff: +((c.inertia - s.sklearn.inertia) / s.sklearn.inertia).toExponential(2),
  })
}
const ratios = reps.map((x) => x.ratio).sort((a, b) => a - b)
console.log(JSON.stringify({ repetitions: reps, medianRatio: ratios[ratios.length >> 1] }, null, 2))
' "$OUT" "$REPEAT"
