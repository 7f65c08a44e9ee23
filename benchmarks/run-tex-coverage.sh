#!/usr/bin/env bash
# TeX coverage of TeXMath against KaTeX, suite by suite.
#
#   benchmarks/run-tex-coverage.sh [SUITE.jsonl ...]
#
# Without arguments: every benchmarks/tex-suites/*.jsonl, then the shared corpora latex2mathml,
# texmath-reader-tex and texmath-writer-pairs (from $LECTERN_SHARED_CORPORA, default ../shared/corpora
# next to the repository, else the copies in Tests/TeXMathTests/Fixtures/corpora).
# A suite is JSONL, one {"tex": "...", "display": true|false, ...} a line (no display = display mode).
#
# Steps: a release build of lectern-bench-tex (scratch path .build-bench, so .build is untouched);
# per suite one lectern-bench-tex run (TeXMath), one node run of KaTeX (tex-coverage/katex-render.js),
# xmllint RelaxNG validation of every TeXMath <math> against MathML Core (Tests/TeXMathTests/
# Fixtures/mathml4-core.rng, all files of a suite per process), and the scoring in
# tex-coverage/compare.py, whose header defines the measures and the "leaf tokens" precisely:
#   clean%     converted without warning (no <merror>)
#   valid%     valid MathML Core
#   katex ok   how many KaTeX renders (the rest: "KaTeX refuses" — parse error, undefined command)
#   clean%|ok  clean among those KaTeX renders
#   tokens%    among those KaTeX renders: normalised leaf tokens (mi mn mo mtext ms text, NFKC,
#              invisible operators and whitespace dropped, math alphanumerics = base letters, digit
#              runs joined …) equal KaTeX's
#   silent     clean, KaTeX renders it, tokens differ (a difference without a warning)
# Output: a table on stdout; .build-bench/tex-coverage/summary.json (all suites), report.md (the
# breakdown in Markdown: constructs, top warnings, token differences) and, per suite,
# .build-bench/tex-coverage/<suite>/{summary.json,failures.jsonl,ours.jsonl,katex.jsonl}.
# summary.json per suite also lists warnings by count, KaTeX refusals and the most common token
# differences ("ours → katex") with examples.
#
# Needs: node with KaTeX (Debian: apt-get install -y katex), xmllint (apt-get install -y
# libxml2-utils), python3.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
scratch=${LECTERN_BENCH_SCRATCH:-$root/.build-bench}
here=$root/benchmarks/tex-coverage
out=$scratch/tex-coverage
schema=$root/Tests/TeXMathTests/Fixtures/mathml4-core.rng

die() { printf 'run-tex-coverage.sh: %s\n' "$@" >&2; exit 2; }

command -v node >/dev/null || die "node is not installed." "  Install it: apt-get install -y nodejs (or katex, which pulls it in)."
if ! node -e 'try { require("katex") } catch (e) { require("/usr/share/nodejs/katex") }' 2>/dev/null; then
    die "KaTeX is not installed: the reference renderer is the KaTeX node module." \
        "  Install it: apt-get install -y katex   (Debian/Ubuntu; puts it in /usr/share/nodejs/katex)" \
        "  or make require(\"katex\") work (NODE_PATH pointing at a KaTeX checkout or node_modules)."
fi
command -v xmllint >/dev/null || die "xmllint is not installed (it validates against MathML Core)." "  Install it: apt-get install -y libxml2-utils"
command -v python3 >/dev/null || die "python3 is not installed."
[[ -f $schema ]] || die "the MathML Core schema is missing: $schema"

if [[ $# -eq 0 ]]; then
    shared=${LECTERN_SHARED_CORPORA:-$root/../shared/corpora}
    [[ -d $shared ]] || shared=$root/Tests/TeXMathTests/Fixtures/corpora
    set -- "$root"/benchmarks/tex-suites/*.jsonl \
        "$shared/latex2mathml.jsonl" "$shared/texmath-reader-tex.jsonl" "$shared/texmath-writer-pairs.jsonl"
fi
for suite in "$@"; do [[ -f $suite ]] || die "no such suite: $suite"; done

swift build -c release --package-path "$root" --scratch-path "$scratch" --product lectern-bench-tex >&2
bench=$scratch/release/lectern-bench-tex

mkdir -p "$out"
dirs=()
for suite in "$@"; do
    name=$(basename "$suite" .jsonl)
    dir=$out/$name
    mkdir -p "$dir"
    "$bench" "$suite" "$dir/ours.jsonl"
    node "$here/katex-render.js" "$suite" "$dir/katex.jsonl" >/dev/null
    python3 "$here/compare.py" score --name "$name" --suite "$suite" --ours "$dir/ours.jsonl" \
        --katex "$dir/katex.jsonl" --schema "$schema" --out "$dir" >/dev/null
    dirs+=("$dir")
done
echo
python3 "$here/compare.py" table "${dirs[@]}"
python3 "$here/compare.py" combine "$out/summary.json" "${dirs[@]}"
python3 "$here/compare.py" report "${dirs[@]}" > "$out/report.md"
echo
echo "per suite: $out/<suite>/summary.json and failures.jsonl"
echo "all suites: $out/summary.json; breakdown (constructs, top warnings, token differences): $out/report.md"
