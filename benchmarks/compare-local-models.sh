#!/usr/bin/env bash
# Compares local models on the examples: each example spec is run from an empty exchange cache
# with `model.name` replaced, and the bundle's quality.json (written with --allow-partial, so a
# model that fails items still reports) and the event log give, per model and example:
# model answers, refusals per 100 answers, answers failed, blind-solve agreement, and generated
# tokens per second.
#
#   benchmarks/compare-local-models.sh MODEL [SPEC...]
#
# MODEL is a name of `lectern models` (install it with scripts/install-local-model.sh MODEL).
# Default specs: both course examples. Prints one Markdown table row per example. Nothing in
# the repository is written; the work directory is printed.
# Environment: LECTERN (default .build/release/lectern).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { sed -n 2,12p "$0" >&2; exit 2; }
model="$1"
shift
specs=("$@")
[ ${#specs[@]} -gt 0 ] || specs=(pipelines/examples/python-basics.yaml pipelines/examples/intro-probability.yaml)
LECTERN="${LECTERN:-.build/release/lectern}"
[ -x "$LECTERN" ] || swift build -c release --product lectern
work="$(mktemp -d)"
echo "work directory: $work" >&2
for spec in "${specs[@]}"; do
  id=$(sed -n 's/^id: *//p' "$spec")
  # The same spec, on the other model, and not read from the spec's recorded cassette.
  sed -e "s/^id: .*/id: $id-$model/" -e "s/^  name: .*/  name: $model/" "$spec" > "$work/$id.yaml"
  grep -q "^  name: $model\$" "$work/$id.yaml" || { echo "$spec: no '  name:' line under model: to replace" >&2; exit 2; }
  start=$(date +%s)
  set +e
  "$LECTERN" run "$work/$id.yaml" --cache-dir "$work/cache-$id" --output "$work/out" --allow-partial --log-format json \
    2> "$work/$id.log" > /dev/null
  status=$?
  set -e
  seconds=$(( $(date +%s) - start ))
  python3 - "$work/out/$id-$model/1.0.0/quality.json" "$work/$id.log" "$model" "$id" "$status" "$seconds" <<'EOF'
import json, sys
quality_path, log_path, model, example, status, seconds = sys.argv[1:]
try:
    q = json.load(open(quality_path))
except OSError:
    print(f"| {model} | {example} | no bundle (exit {status}) | | | | | {seconds} s |")
    sys.exit(0)
items = q["items"]
refusals = sum(c["refusals"] for c in q["checks"])
by_check = ", ".join(f'{c["check"]} {c["refusals"]}' for c in q["checks"] if c["refusals"])
solve = items["blind_solve"]
agreement = f'{solve["agreed"]}/{solve["asked"]}' if solve["asked"] else "–"
tokens = ms = 0
for line in open(log_path, encoding="utf-8"):
    if line.startswith("{"):
        e = json.loads(line)
        if e.get("event") == "item_finished" and not e.get("cached", True):
            tokens += e.get("completion_tokens", 0)
            ms += e.get("latency_ms", 0)
rate = f"{tokens / (ms / 1000):.1f}" if ms else "–"
per100 = 100 * refusals / items["checked"] if items["checked"] else 0
print(f'| {model} | {example} | {items["checked"]} | {per100:.0f} ({by_check}) | {items["failed"]} | {agreement} | {rate} | {seconds} s |')
EOF
done
