#!/usr/bin/env bash
# HTTP client benchmark: Lectern's CurlHTTPClient + OpenAICompatibleProvider against the
# `openai` Python SDK (AsyncOpenAI), both talking to the same loopback server.
#
#   benchmarks/run-http.sh [--duration SECONDS]   (default 10)
#
# Builds lectern-bench-http in release, starts its poll(2) server on a free loopback port, runs
# the Lectern client phases, then the Python peer (installing `openai` into benchmarks/.venv on
# first use), and prints a comparison. Environment: SCRATCH (build folder, default .build-bench).
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=10
if [[ "${1:-}" == "--duration" && -n "${2:-}" ]]; then DURATION="$2"; fi
SCRATCH="${SCRATCH:-.build-bench}"

swift build -c release --product lectern-bench-http --scratch-path "$SCRATCH" >&2
BIN="$SCRATCH/release/lectern-bench-http"

if [[ ! -x benchmarks/.venv/bin/python ]]; then
    python3 -m venv benchmarks/.venv
    benchmarks/.venv/bin/pip install --quiet openai >&2
fi

WORK="$(mktemp -d)"
"$BIN" serve --port-file "$WORK/port" 2>"$WORK/server.log" &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null || true; rm -rf "$WORK"' EXIT
for _ in $(seq 1 100); do [[ -s "$WORK/port" ]] && break; sleep 0.05; done
[[ -s "$WORK/port" ]] || { echo "the benchmark server did not start: $(cat "$WORK/server.log")" >&2; exit 1; }
URL="http://127.0.0.1:$(cat "$WORK/port")"

COMMON=(--base-url "$URL" --concurrency 64 --duration "$DURATION" --latency-requests 1000 --latency-concurrency 32 --latency-ms 200)
echo "== lectern (release) against $URL" >&2
"$BIN" run "${COMMON[@]}" | tee "$WORK/results.jsonl"
echo "== openai-python $(benchmarks/.venv/bin/python -c 'import openai; print(openai.__version__)')" >&2
benchmarks/.venv/bin/python benchmarks/openai_peer.py "${COMMON[@]}" | tee -a "$WORK/results.jsonl"

python3 - "$WORK/results.jsonl" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
by = {(r["client"], r["phase"]): r for r in rows}
print()
print(f"{'client':<14} {'phase':<20} {'conc':>4} {'requests':>8} {'seconds':>8} {'req/s':>9} {'cpu s':>7} {'cpu ms/req':>10}")
for r in rows:
    print(f"{r['client']:<14} {r['phase']:<20} {r['concurrency']:>4} {r['requests']:>8} {r['seconds']:>8.2f} "
          f"{r['rps']:>9.1f} {r['cpu_seconds']:>7.2f} {r['cpu_ms_per_request']:>10.3f}"
          + (f"  (ideal {r['ideal_seconds']:.2f} s, x{r['ratio_to_ideal']:.3f})" if "ideal_seconds" in r else ""))
l, p = by.get(("lectern", "provider_throughput")), by.get(("openai-python", "provider_throughput"))
if l and p:
    print(f"\nthroughput ratio lectern/openai-python: {l['rps'] / p['rps']:.2f}x requests/s, "
          f"{p['cpu_ms_per_request'] / l['cpu_ms_per_request']:.2f}x less CPU per request")
PY
