#!/usr/bin/env bash
# Resumes the re-recording of the examples under the trust checks (issue 17), from the answers
# recorded so far. Run from the repository root after `git apply wip/issue-17/trust-checks.patch`
# and `swift build`:
#
#   wip/issue-17/record.sh [ID...]     (default: the four examples still to record, in order)
#
# Each example's exchange cache lives under $RECORD_CACHE (default ~/.cache/lectern/fixtures-cache,
# outside the work tree, so it outlives a fresh clone on the same machine). The first time, it is
# seeded with wip/issue-17/answers/<id>.jsonl (every exchange recorded so far, refused attempts and
# blind solves included) and the example's committed cassette; then scripts/record-fixtures.sh runs
# the example on the local model, up to 4 rounds (each round gives a failed item 4 more attempts;
# the earlier ones come from the cache). The cassette, its event log and, for python-basics, the
# golden bundle are written as record-fixtures.sh writes them.
set -uo pipefail
cd "$(dirname "$0")/../.."
export RECORD_CACHE="${RECORD_CACHE:-$HOME/.cache/lectern/fixtures-cache}" LECTERN="${LECTERN:-.build/debug/lectern}"
[ -x "$LECTERN" ] || swift build --product lectern
ids=("$@")
[ ${#ids[@]} -gt 0 ] || ids=(python-basics python-collections intro-probability world-geography-exam)
for id in "${ids[@]}"; do
  if [ ! -f "$RECORD_CACHE/$id.seeded" ]; then
    for answers in "wip/issue-17/answers/$id.jsonl" "pipelines/cassettes/$id.jsonl"; do
      [ -f "$answers" ] && "$LECTERN" cache import "$answers" --cache-dir "$RECORD_CACHE/$id"
    done
    touch "$RECORD_CACHE/$id.seeded"
  fi
  for round in 1 2 3 4; do
    echo "=== $id round $round $(date -u)"
    if scripts/record-fixtures.sh "pipelines/examples/$id.yaml"; then echo "=== $id recorded $(date -u)"; break; fi
  done
done
