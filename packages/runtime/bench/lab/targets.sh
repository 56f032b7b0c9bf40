#!/usr/bin/env bash
# Issue 19's lab runs. Superseded by the reproduction experiments (from packages/runtime:
# npx tsx bench/reproductions/run.ts lab-broadcast lab-socket-buffers; bench/reproductions/experiments.ts)
# except for "random" and "uplinks", which rerun the random-chain tables of docs/lab.md
# ("Random chains: the uplink bound"); "main" and "buffers" are kept for comparison with older runs.
# Needs root and a built runtime (npx turbo run build). Prints the load before each run.
# Usage: [LAB=N] targets.sh [main|random|buffers|uplinks] (default: all four, ~10 minutes at low load).
# On a shared machine run it under the bench lock: flock /tmp/codebook-bench.lock timeout 600 …
set -euo pipefail
cd "$(dirname "$0")/../.."
cb() { timeout 600 node bin/codebook.js lab bench broadcast --lab "${LAB:-0}" "$@"; }
load() { echo "# $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"; }
lab=(--racks 3 --hosts-per-rack 4 --node-mbps 100 --bytes 16MB)
part=${1:-all}
if [[ $part == all || $part == main ]]; then
  echo "## targets: 3 racks × 4 hosts, 100 / 200 Mbit/s, 16 MiB"; load
  cb "${lab[@]}" --uplink-mbps 200 --hosts 4,8,12 --algorithms simple,mst,bucket,chain,chain-random --repeat 3 --json
fi
if [[ $part == all || $part == random ]]; then
  echo "## random chain orders at 12 hosts, seeds 1-6, each beside the rack-ordered chain"
  for seed in 1 2 3 4 5 6; do
    load
    cb "${lab[@]}" --uplink-mbps 200 --hosts 12 --algorithms chain,chain-random --seed "$seed" --repeat 3 --json |
      sed "s/}\$/,\"seed\":$seed}/"
  done
fi
if [[ $part == all || $part == buffers ]]; then
  echo "## socket buffers: 4 hosts, 5 ms per hop, 2 MiB chain"
  for kb in 1024 128 32 8; do
    load
    cb --racks 1 --hosts-per-rack 4 --node-mbps 100 --uplink-mbps 200 --bytes 2MB \
      --hosts 4 --algorithms chain --delay-ms 5 --tcp-buffer-kb "$kb" --repeat 3 --json | sed "s/}\$/,\"tcpBufferKb\":$kb}/"
  done
fi
if [[ $part == all || $part == uplinks ]]; then
  echo "## the same lab with uplinks as fast as a node (ceiling 4 ×): random chains, seeds 1-4"
  for seed in 1 2 3 4; do
    load
    cb "${lab[@]}" --uplink-mbps 100 --hosts 12 --algorithms chain,chain-random --seed "$seed" --repeat 3 --json |
      sed "s/}\$/,\"seed\":$seed}/"
  done
fi
load
