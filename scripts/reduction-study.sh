#!/usr/bin/env bash
# Regenerates the reduction study's data (docs/data/reductions-*.jsonl) and charts (docs/img/).
# Needs a build (npx turbo run build). Takes a few minutes on 2 cores: Figure 3 plays 600,000
# instances × 4 algorithms of 64 processes.
set -euo pipefail
cd "$(dirname "$0")/.."
codebook=(node packages/runtime/bin/codebook.js study reductions --seed 1 --json)
"${codebook[@]}" --n 64 --cv 0.01,0.1,0.3,1,3,10 --mu-c 0 --runs 100000 >docs/data/reductions-figure3.jsonl
"${codebook[@]}" --n 64 --grid --runs 1000 >docs/data/reductions-figure4.jsonl
: >docs/data/reductions-markov.jsonl
for n in 2 4 8 16 32 64 128 256; do
  "${codebook[@]}" --markov --n "$n" --runs 100000 >>docs/data/reductions-markov.jsonl
done
node scripts/reduction-charts.mjs
