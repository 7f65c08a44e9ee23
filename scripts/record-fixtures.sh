#!/usr/bin/env bash
# Re-records the example cassettes on the local model and regenerates the golden bundle.
#
#   scripts/record-fixtures.sh [SPEC...]     (default: both examples)
#
# For each example: a run on the local model with an empty cache writes every exchange it used to
# pipelines/cassettes/<id>.jsonl (sorted JSONL, no secrets) and its JSON event log to
# pipelines/cassettes/<id>.log.jsonl (for the quality counts in docs/BENCHMARKS.md). Then the
# golden bundle of python-basics is regenerated offline from its cassette into
# Tests/LecternCLITests/Fixtures/golden/, which a test compares byte for byte.
# Run it when a change is meant to alter the examples' output (a prompt, a schema, a validator).
set -euo pipefail
cd "$(dirname "$0")/.."
LECTERN="${LECTERN:-.build/release/lectern}"
[ -x "$LECTERN" ] || swift build -c release --product lectern
specs=("$@")
[ ${#specs[@]} -gt 0 ] || specs=(pipelines/examples/python-basics.yaml pipelines/examples/intro-probability.yaml)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# Answers are cached here between runs, so an interrupted recording resumes where it stopped and
# a prompt change re-asks only the items it affects (cache keys hold the template versions).
# Delete the directory (or set RECORD_CACHE to an empty one) for a recording from scratch.
cache_root="${RECORD_CACHE:-.build/fixtures-cache}"
for spec in "${specs[@]}"; do
  id=$(sed -n 's/^id: *//p' "$spec")
  echo "== recording $id on the local model (this takes a while; progress in $work/$id.err)" >&2
  start=$(date +%s)
  set +e
  "$LECTERN" run "$spec" --cache-dir "$cache_root/$id" --output "$work/out" --log-format json \
    --record-cassette "pipelines/cassettes/$id.jsonl" 2> "$work/$id.err"
  status=$?
  set -e
  grep '^{' "$work/$id.err" > "pipelines/cassettes/$id.log.jsonl" || true
  echo "   $id: exit $status after $(( $(date +%s) - start )) s" >&2
  tail -3 "$work/$id.err" >&2
  [ $status -eq 0 ] || { echo "recording $id failed (exit $status); see above" >&2; exit $status; }
done
# The golden bundle follows python-basics' cassette: regenerated when that example was recorded.
golden=Tests/LecternCLITests/Fixtures/golden
if printf '%s\n' "${specs[@]}" | grep -q 'python-basics\.yaml$'; then
  rm -rf "$golden"
  "$LECTERN" run pipelines/examples/python-basics.yaml --cache offline \
    --cassette pipelines/cassettes/python-basics.jsonl --cache-dir "$work/empty" --output "$golden"
  "$LECTERN" verify "$golden/python-basics/1.0.0"
fi
