#!/usr/bin/env bash
# What Lectern's deterministic gates refuse of a labelled set (recall per defect class, share of
# clean items refused) and of public banks of real questions (goal: at most 1% refused); issue 48.
#
#   benchmarks/run-gates.sh [--items]
#
# Reads Tests/LecternCoreTests/Fixtures/labelled/items.jsonl and the hamexam and fccexam banks
# beside the tests (Fixtures/banks). MMLU, which the project does not keep: benchmarks/run-mmlu-check.sh. A correctness measure, not a speed one: the debug build will do.
# Environment: SCRATCH (build folder, default .build), CONFIGURATION (debug or release).
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH="${SCRATCH:-.build}"
CONFIGURATION="${CONFIGURATION:-debug}"
swift build -c "$CONFIGURATION" --product lectern-bench-gates --scratch-path "$SCRATCH" >&2
echo "== gates ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores)" >&2
banks=Tests/LecternCoreTests/Fixtures/banks
"$SCRATCH/$CONFIGURATION/lectern-bench-gates" "$@" Tests/LecternCoreTests/Fixtures/labelled/items.jsonl \
    "$banks/hamexam-technician.jsonl" "$banks/hamexam-general.jsonl" "$banks/hamexam-extra.jsonl" "$banks"/fccexam-*.jsonl
