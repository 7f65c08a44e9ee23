#!/usr/bin/env bash
# Whether a local-model answer depends on the request before it, as shipped and with Lectern's
# prefix pinning (benchmarks/prefix_determinism.py; issue 45). Needs the local model
# (`make model`). The patch measured is the one in LocalModelServer.swift, extracted here.
#
#   benchmarks/run-prefix-determinism.sh [--n-batch 512 128] [--pairs 4] [--threads N]
set -euo pipefail
cd "$(dirname "$0")/.."
root="${LECTERN_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/lectern}"
python="$root/local-model/venv/bin/python"
model="$(ls "$root"/local-model/models/*.gguf 2>/dev/null | head -1)"
[ -x "$python" ] && [ -n "$model" ] || { echo "no local model under $root/local-model: run 'make model'" >&2; exit 2; }
patch="$(mktemp)"
trap 'rm -f "$patch"' EXIT
# The Swift multi-line literal `static let prefixPinning = """ … """`, its 8-space indent removed.
awk '/static let prefixPinning = """/ { on = 1; next } on && /^        """/ { exit } on { sub(/^        /, ""); print }' \
    Sources/LecternLLM/Local/LocalModelServer.swift > "$patch"
grep -q "_lectern_pin_prefix" "$patch" || { echo "could not extract the patch from LocalModelServer.swift" >&2; exit 2; }
echo "== prefix determinism ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
exec "$python" benchmarks/prefix_determinism.py --model "$model" --pinning "$patch" "$@"
