#!/usr/bin/env bash
# Release build of lectern-bench-render (its own scratch path, so it never touches .build), then a run:
# 1,000 generated lectures through LecternRender, pandoc and the cmark-gfm CLI.
#   benchmarks/run-render.sh [--files N] [--dir PATH] [--skip-tools]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
scratch=${LECTERN_BENCH_SCRATCH:-$root/.build-bench}
swift build -c release --package-path "$root" --scratch-path "$scratch" --product lectern-bench-render
exec "$scratch/release/lectern-bench-render" "$@"
