#!/usr/bin/env bash
# Builds the LecternRender libFuzzer harness and runs it.
#   fuzz/run-render.sh [seconds]        default 600; extra libFuzzer flags via FUZZ_FLAGS
# Environment: FUZZ_BUILD_DIR (default $TMPDIR/lectern-fuzz-render), TEXMATH_SOURCES (default Sources/TeXMath).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${FUZZ_BUILD_DIR:-${TMPDIR:-/tmp}/lectern-fuzz-render}
texmath=${TEXMATH_SOURCES:-$root/Sources/TeXMath}
seconds=${1:-600}
mkdir -p "$out/corpus" "$out/artifacts"

flags=(-sanitize=fuzzer,address -O -g -parse-as-library -swift-version 6)
includes=(-I "$out" -I "$root/Sources/CCmarkGFM" -I "$root/Sources/CLibXML2" -Xcc -I/usr/include/libxml2)

echo "== building LecternLanguage"
swiftc "${flags[@]}" -module-name LecternLanguage -emit-library -static -emit-module \
  -emit-module-path "$out/LecternLanguage.swiftmodule" -o "$out/libLecternLanguage.a" \
  $(find "$root/Sources/LecternLanguage" -name '*.swift' | sort)
echo "== building TeXMath"
swiftc "${flags[@]}" -I "$out" -module-name TeXMath -emit-library -static -emit-module \
  -emit-module-path "$out/TeXMath.swiftmodule" -o "$out/libTeXMath.a" \
  $(find "$texmath" -name '*.swift' | sort)
echo "== building LecternRender"
swiftc "${flags[@]}" -enable-testing -module-name LecternRender -emit-library -static -emit-module \
  -emit-module-path "$out/LecternRender.swiftmodule" -o "$out/libLecternRender.a" "${includes[@]}" \
  $(find "$root/Sources/LecternRender" -name '*.swift' | sort)
echo "== building the harness"
swiftc "${flags[@]}" "${includes[@]}" "$root/fuzz/RenderFuzz/main.swift" -o "$out/render-fuzz" \
  -L "$out" -lLecternRender -lTeXMath -lLecternLanguage -lcmark-gfm -lcmark-gfm-extensions -lxml2

echo "== fuzzing for ${seconds}s"
cd "$out"
export SWIFT_BACKTRACE=enable=no  # the Swift backtracer trips ASan; libFuzzer prints the trap message
# -jobs=1 runs one worker process and writes its log to fuzz-0.log.
set +e
"$out/render-fuzz" -max_total_time="$seconds" -jobs=1 -timeout=5 -rss_limit_mb=4096 \
  -dict="$root/fuzz/RenderFuzz/markdown.dict" -artifact_prefix="$out/artifacts/" ${FUZZ_FLAGS:-} \
  "$out/corpus" "$root/fuzz/RenderFuzz/seeds"
status=$?
set -e
tail -n 25 "$out/fuzz-0.log" 2>/dev/null || true
grep -h "stat::number_of_executed_units\|#[0-9]*.*DONE" "$out/fuzz-0.log" 2>/dev/null | tail -n 2 || true
ls "$out/artifacts"
exit $status
