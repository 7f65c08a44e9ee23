#!/usr/bin/env bash
# The quotes kind against the mock LLM server (lectern-mock-llm's library, in process): 2,000
# synthetic quotes tagged in batches by the real `lectern` binary at concurrency 16 and 300 ms a
# call, plus the template bank, against the bound calls ÷ concurrency × latency (goal ≤ 1.10×).
#
#   benchmarks/run-quotes.sh [--quotes N] [--batch N] [--concurrency N] [--latency-ms N]
#
# Environment: SCRATCH (build folder, default .build-bench), WORK (kept; default a temp dir).
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH="${SCRATCH:-.build-bench}"
swift build -c release --product lectern --scratch-path "$SCRATCH" >&2
swift build -c release --product lectern-bench-quotes --scratch-path "$SCRATCH" >&2
WORK="${WORK:-$(mktemp -d)}"
echo "== quotes ($(date -u +%Y-%m-%dT%H:%MZ), work in $WORK)" >&2
"$SCRATCH/release/lectern-bench-quotes" --lectern "$SCRATCH/release/lectern" --work "$WORK" --json "$WORK/quotes.json" "$@"
