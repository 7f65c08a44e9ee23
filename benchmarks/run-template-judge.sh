#!/usr/bin/env bash
# What the template judge (templates: { judge: true }, issue 48 §5) is worth on the local model:
# its verdicts on the 80 labelled lines of the Echo bank recorded on 2026-11-25
# (Tests/LecternCoreTests/Fixtures/labelled/templates.jsonl), recall per emotion and the share of
# fitting lines refused. Needs the local model (`make model`); one call an emotion, about a minute
# each on 2 cores.
#
#   benchmarks/run-template-judge.sh [RESULTS.jsonl]
#
# RESULTS.jsonl (default benchmarks/results/template-judge-local.jsonl) keeps every answer as it
# comes: a run that stops resumes there, and a finished one prints its table again without the model.
set -euo pipefail
cd "$(dirname "$0")/.."
results="${1:-benchmarks/results/template-judge-local.jsonl}"
mkdir -p "$(dirname "$results")"
swift build --product lectern-bench-template-judge >&2
echo "== template judge on the labelled lines ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores)" >&2
exec .build/debug/lectern-bench-template-judge Tests/LecternCoreTests/Fixtures/labelled/templates.jsonl "$results"
