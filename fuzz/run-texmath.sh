#!/usr/bin/env bash
# Builds the TeXMath libFuzzer target and runs it (see fuzz/README.md).
#   fuzz/run-texmath.sh [seconds]      default 600
# Environment: FUZZ_BUILD_DIR (default .build-fuzz, git-ignored), FUZZ_JOBS (default 1).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-600}"
build="${FUZZ_BUILD_DIR:-$root/.build-fuzz}"
mkdir -p "$build/corpus" "$build/artifacts"

# LecternLanguage (the language-tag rule TeXMath imports) as a module of its own, then one
# module: the converter's sources plus the harness; libxml2 only checks well-formedness.
# shellcheck disable=SC2046
swiftc -sanitize=fuzzer,address -parse-as-library -O -g \
    -module-name LecternLanguage -emit-library -static -emit-module \
    -emit-module-path "$build/LecternLanguage.swiftmodule" -o "$build/libLecternLanguage.a" \
    $(find "$root/Sources/LecternLanguage" -name '*.swift' | sort)
# shellcheck disable=SC2046
swiftc -sanitize=fuzzer,address -parse-as-library -O -g \
    -module-name TeXMathFuzz -I "$build" -L "$build" -lLecternLanguage \
    -I "$root/Sources/CLibXML2" $(pkg-config --cflags-only-I libxml-2.0 | sed 's/-I/-Xcc -I/g') -lxml2 \
    $(find "$root/Sources/TeXMath" -name '*.swift' | sort) \
    "$root/fuzz/TeXMathFuzz/main.swift" \
    -o "$build/texmath-fuzz"

if [ -n "${FUZZ_BUILD_ONLY:-}" ]; then echo "built $build/texmath-fuzz"; exit 0; fi

# New inputs go to $build/corpus; the committed seeds are only read. Logs (fuzz-0.log with
# -jobs) and crash/timeout artefacts stay in $build, never in the repository.
cd "$build"
status=0
"$build/texmath-fuzz" "$build/corpus" "$root/fuzz/corpus-texmath" \
    -dict="$root/fuzz/TeXMathFuzz/tex.dict" \
    -max_total_time="$seconds" -timeout=5 -max_len=4096 -rss_limit_mb=2048 \
    -jobs="${FUZZ_JOBS:-1}" -workers="${FUZZ_JOBS:-1}" \
    -artifact_prefix="$build/artifacts/" -print_final_stats=1 || status=$?
if ls "$build"/fuzz-*.log >/dev/null 2>&1; then tail -n 20 "$build"/fuzz-*.log; fi
ls "$build/artifacts"
exit $status
