#!/usr/bin/env bash
# Exam planning at scale: a deterministic synthetic corpus (50 MiB of English, Arabic and mixed
# Markdown) and a 2,000-item blueprint; loading, indexing, the coverage check and the source plan,
# first with an empty index cache, then with the cache it wrote. Wall time and peak RSS come from
# /usr/bin/time -v; the last run adds the checks made on model answers (--check).
#   benchmarks/run-exam-plan.sh [MEGABYTES]   (default 50; DIR=path keeps the corpus there)
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH="${SCRATCH:-.build-bench}"
swift build -c release --product lectern-bench-exam-plan --scratch-path "$SCRATCH" >&2
bin="$SCRATCH/release/lectern-bench-exam-plan"
dir="${DIR:-$(mktemp -d)}"
[ -d "$dir/corpus" ] || "$bin" generate "$dir" --megabytes "${1:-50}"
rm -rf "$dir/index-cache"
for run in "cold index cache" "warm index cache" "warm, with --check"; do
    echo "== $run"
    extra=()
    [ "$run" = "warm, with --check" ] && extra=(--check)
    /usr/bin/time -v "$bin" plan "$dir" --cache "$dir/index-cache" "${extra[@]}" 2> "$dir/time.txt"
    grep -E "Elapsed \(wall clock\)|Maximum resident set size" "$dir/time.txt" | sed 's/^\s*/   /'
done
echo "corpus and cache kept in $dir"
