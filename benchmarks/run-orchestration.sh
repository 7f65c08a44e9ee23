#!/usr/bin/env bash
# Orchestration benchmarks against the mock LLM server (lectern-mock-llm's library, in process):
#   orchestration  a 30-topic course with every add-on, concurrency 16, 300 ms latency, against
#                  the bound max(critical path, calls ÷ concurrency × latency)
#   rebuild        the unchanged job again (zero calls) and a one-topic edit of the pinned outline
#   peer           the same calls through the `openai` Python SDK (AsyncOpenAI), same concurrency
#   scale          a 1,000-topic course at 50 ms: wall time, peak RSS, cache size
#
#   benchmarks/run-orchestration.sh [--skip-scale] [--latency-ms N] [--concurrency N] [...]
#
# Extra options go to lectern-bench-orchestration (see benchmarks/Orchestration/main.swift).
# Environment: SCRATCH (build folder, default .build-bench), WORK (kept; default a temp dir).
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH="${SCRATCH:-.build-bench}"

swift build -c release --product lectern --scratch-path "$SCRATCH" >&2
swift build -c release --product lectern-bench-orchestration --scratch-path "$SCRATCH" >&2

if [[ ! -x benchmarks/.venv/bin/python ]]; then
    python3 -m venv benchmarks/.venv
    benchmarks/.venv/bin/pip install --quiet openai >&2
fi

WORK="${WORK:-$(mktemp -d)}"
echo "== orchestration ($(date -u +%Y-%m-%dT%H:%MZ), work in $WORK)" >&2
"$SCRATCH/release/lectern-bench-orchestration" \
    --lectern "$SCRATCH/release/lectern" \
    --script Tests/LecternPipelineTests/Fixtures/course-script.json \
    --presets pipelines/presets \
    --python benchmarks/.venv/bin/python --peer benchmarks/orchestration_peer.py \
    --work "$WORK" --json "$WORK/orchestration.json" "$@"
