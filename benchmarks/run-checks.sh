#!/usr/bin/env bash
# What checking costs: every answer of the committed cassettes and their logs of refused attempts
# through the checks every answer gets (benchmarks/CheckBench), CPU time per checked answer.
#
#   benchmarks/run-checks.sh [--repeat N]
#
# Environment: SCRATCH (build folder, default .build-bench).
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH="${SCRATCH:-.build-bench}"
swift build -c release --product lectern-bench-checks --scratch-path "$SCRATCH" >&2
echo "== checks ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
"$SCRATCH/release/lectern-bench-checks" "$@" pipelines/cassettes/*.jsonl
