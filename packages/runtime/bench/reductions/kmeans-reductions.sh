#!/bin/bash
# K-means's shuffle/reduce/combine stages with each --reduction (docs/benchmarks.md,
# "Reductions in K-means's stages"): 100k × 32 seeded blobs, k = 1,000 random rows, 4 workers, 6 iterations; prints
# the stage ms averaged over iterations 2–6, the bytes per iteration and the final inertia.
# Run from packages/runtime after a build: bash bench/reductions/kmeans-reductions.sh
set -euo pipefail
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
node --input-type=module -e "
const r = await import('./dist/index.js')
const { points } = r.generateBlobs({ n: 100000, d: 32, blobs: 1000, seed: 5 })
await r.writeNpy('$dir/x.npy', points, 100000, 32)"
for red in regroup binomial fibonacci tree-dyn noncommut-tree-dyn; do
  timeout 300 node bin/codebook.js kmeans --data "$dir/x.npy" --k 1000 --init random --workers 4 \
    --iterations 6 --tol 0 --reduction "$red" --json |
    RED="$red" node -e "
let s = ''
process.stdin.on('data', (d) => (s += d)).on('end', () => {
  const it = s.trim().split('\n').map((l) => JSON.parse(l)).filter((x) => x.iteration > 1)
  const avg = (f) => it.reduce((a, x) => a + f(x), 0) / it.length
  const st = (name) => avg((x) => x.stages[name].ms).toFixed(1)
  const bytes = avg((x) => x.stages.shuffle.bytes + x.stages.reduce.bytes + x.stages.combine.bytes)
  console.log(process.env.RED.padEnd(20), 'shuffle', st('shuffle'), 'reduce', st('reduce'), 'combine', st('combine'),
    'bytes/iter', bytes.toFixed(0), 'inertia', it.at(-1).inertia.toPrecision(8))
})"
done
