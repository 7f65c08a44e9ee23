#!/usr/bin/env bash
# Every benchmark, one after the other; numbers go to docs/BENCHMARKS.md by hand, with the date.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== engine"; benchmarks/run-engine.sh
echo "== http";   benchmarks/run-http.sh
if [ -x benchmarks/run-render.sh ]; then echo "== render"; benchmarks/run-render.sh; fi
echo "== orchestration"; benchmarks/run-orchestration.sh
echo "== quotes"; benchmarks/run-quotes.sh
echo "== review"; benchmarks/run-review.sh
echo "== checks"; benchmarks/run-checks.sh
