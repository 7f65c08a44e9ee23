#!/usr/bin/env bash
# What a review file costs a run: reading 10,000 decisions, applying them, writing review.json
# (benchmarks/ReviewBench; goal < 1 s in all, issue 47).
#
#   benchmarks/run-review.sh [--items N]
#
# Environment: SCRATCH (build folder, default .build-bench).
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH="${SCRATCH:-.build-bench}"
swift build -c release --product lectern-bench-review --scratch-path "$SCRATCH" >&2
echo "== review ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
"$SCRATCH/release/lectern-bench-review" "$@"
