#!/usr/bin/env bash
# What the rubric judge (review: { rubric: true }, issue 48) is worth on the local model: its
# verdicts on a stratified sample of the labelled set (N items a defect class, M clean), recall per
# class and the share of clean items refused, with and without the rule that a broken criterion
# must quote the item. Needs the local model (`make model`); about 40 s an item on 2 cores.
#
#   benchmarks/run-rubric.sh [RESULTS.jsonl] [--per-class N] [--clean M]
#
# RESULTS.jsonl (default benchmarks/results/rubric-local.jsonl) keeps every verdict as it comes: a
# run that stops resumes there, and a finished one prints its tables again without the model.
set -euo pipefail
cd "$(dirname "$0")/.."
results="${1:-benchmarks/results/rubric-local.jsonl}"
[ $# -gt 0 ] && shift
mkdir -p "$(dirname "$results")"
swift build --product lectern-bench-rubric >&2
echo "== rubric judge on the labelled set ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores)" >&2
exec .build/debug/lectern-bench-rubric Tests/LecternCoreTests/Fixtures/labelled/items.jsonl "$results" "$@"
