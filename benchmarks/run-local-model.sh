#!/usr/bin/env bash
# Single-stream speed of the installed local model (tokens/s, free text and JSON Schema).
#   benchmarks/run-local-model.sh [model] [runs]
# Run it on a quiet machine: the server uses every core.
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 benchmarks/local_model_speed.py "$@"
