#!/usr/bin/env bash
# The issue's lab targets, in the order docs/reproductions.md ("Network lab") quotes them.
# Needs root and a built runtime (npx turbo run build). Prints `uptime` before each run.
# Usage: targets.sh [main|random|buffers] (default: all three, ~8 minutes on a loaded 2-core machine).
set -euo pipefail
cd "$(dirname "$0")/../.."
cb() { timeout 600 node bin/codebook.js "$@"; }
part=${1:-all}
if [[ $part == all || $part == main ]]; then
echo "## targets: 3 racks × 4 hosts, 100 / 200 Mbit/s, 16 MiB"; uptime
cb lab bench broadcast --racks 3 --hosts-per-rack 4 --node-mbps 100 --uplink-mbps 200 --bytes 16MB \
  --hosts 4,8,12 --algorithms simple,mst,bucket,chain,chain-random --repeat 3 --json
fi
if [[ $part == all || $part == random ]]; then
echo "## random chain orders at 12 hosts, seeds 2-6"; uptime
for seed in 2 3 4 5 6; do
  cb lab bench broadcast --racks 3 --hosts-per-rack 4 --node-mbps 100 --uplink-mbps 200 --bytes 16MB \
    --hosts 12 --algorithms chain-random --seed "$seed" --repeat 3 --json | sed "s/}\$/,\"seed\":$seed}/"
done
fi
if [[ $part == all || $part == buffers ]]; then
echo "## socket buffers: 4 hosts, 5 ms per hop, 2 MiB chain"; uptime
for kb in 1024 128 32 8; do
  cb lab bench broadcast --racks 1 --hosts-per-rack 4 --node-mbps 100 --uplink-mbps 200 --bytes 2MB \
    --hosts 4 --algorithms chain --delay-ms 5 --tcp-buffer-kb "$kb" --repeat 3 --json | sed "s/}\$/,\"tcpBufferKb\":$kb}/"
done
uptime
fi
