#!/usr/bin/env bash
# Reliability suite against the mock LLM server: 20% injected faults (OpenAI and Anthropic wire
# formats), a key revoked mid-run (exit 3), and SIGKILLs each followed by a resume (the same
# bundle bytes, nothing finished paid twice). The small size also runs in CI as part of
# `swift test` (the LecternReliabilityTests target).
#
#   benchmarks/run-reliability.sh [--size small|large]
#
# small: a 6-topic course (27 model calls), 3 SIGKILLs; large: 30 topics (126 calls), 10 SIGKILLs.
# Environment: SCRATCH (build folder, default .build-reliability).
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=small
if [[ "${1:-}" == "--size" && -n "${2:-}" ]]; then SIZE="$2"; fi
case "$SIZE" in small|large) ;; *) echo "usage: $0 [--size small|large]" >&2; exit 2 ;; esac
SCRATCH="${SCRATCH:-.build-reliability}"
echo "== reliability ($SIZE, $(date -u +%Y-%m-%dT%H:%MZ), load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
LOG="$(mktemp)"
status=0
LECTERN_RELIABILITY_SIZE="$SIZE" swift test --scratch-path "$SCRATCH" --filter LecternReliabilityTests >"$LOG" 2>&1 || status=$?
grep -E "reliability\[|Test run with|Suite .* (passed|failed)" "$LOG" || true
if [[ $status -ne 0 ]]; then
    echo "-- the suite failed (exit $status); the end of its log:" >&2
    tail -60 "$LOG" >&2
fi
rm -f "$LOG"
exit $status
