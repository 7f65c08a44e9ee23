#!/usr/bin/env bash
# Engine overhead: ~2,000 model items answered instantly, cold (empty cache) then warm (unchanged
# re-run). Usage: benchmarks/run-engine.sh [TOPICS] [CONCURRENCY]   (defaults 500, 16)
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH="${SCRATCH:-.build-bench}"
swift build -c release --product lectern-bench-engine --scratch-path "$SCRATCH" >&2
"$SCRATCH/release/lectern-bench-engine" "${1:-500}" "${2:-16}"
