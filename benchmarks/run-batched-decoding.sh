#!/usr/bin/env bash
# Does decoding several sequences at once write more tokens a second than one, on this machine?
# (issue 45 §3: several candidates per attempt, llama.cpp's own server with parallel slots.)
#
#   benchmarks/run-batched-decoding.sh [--work DIR] [--prompt N] [--generate N] [--sequences 1,2,4]
#
# Downloads the llama-cpp-python source that scripts/install-local-model.sh installs (pinned by
# version and sha256), builds llama.cpp's own `llama-batched-bench` and `llama-server` from the
# llama.cpp it vendors (cmake and ninja from PyPI, in a venv under the work directory; about 10
# minutes on 2 cores), and runs llama-batched-bench with the installed Qwen2.5-Coder-1.5B: one
# shared prompt of N tokens read once, then B sequences of N tokens each written in one batch.
# The S_TG column is the tokens a second the batch writes in total. Run it on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."

work="${TMPDIR:-/tmp}/lectern-batched-decoding"
prompt=600
generate=128
sequences="1,2,4"
while [ $# -gt 0 ]; do
    case "$1" in
        --work) work="$2"; shift 2 ;;
        --prompt) prompt="$2"; shift 2 ;;
        --generate) generate="$2"; shift 2 ;;
        --sequences) sequences="$2"; shift 2 ;;
        *) echo "usage: $0 [--work DIR] [--prompt N] [--generate N] [--sequences 1,2,4]" >&2; exit 2 ;;
    esac
done

version=$(sed -n 's/^LLAMA_CPP_PYTHON_VERSION="\(.*\)"$/\1/p' scripts/install-local-model.sh)
sha256="832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e"  # llama_cpp_python-0.3.36.tar.gz on PyPI
[ "${version}" = "0.3.36" ] || { echo "the installer now pins llama-cpp-python ${version}: update this script's sha256" >&2; exit 2; }
root="${LECTERN_LOCAL_MODEL_DIR:-${HOME}/.cache/lectern/local-model}"
model="${root}/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
[ -f "${model}" ] || { echo "no local model at ${model}: run 'make model' first" >&2; exit 2; }

mkdir -p "${work}"
archive="${work}/llama_cpp_python-${version}.tar.gz"
if [ ! -f "${archive}" ]; then
    url=$(curl -sf --max-time 60 -H "Accept: application/vnd.pypi.simple.v1+json" https://pypi.org/simple/llama-cpp-python/ |
        python3 -c "import json, sys; print(next(f['url'] for f in json.load(sys.stdin)['files'] if f['filename'] == 'llama_cpp_python-${version}.tar.gz'))")
    curl -sf --max-time 600 -o "${archive}.part" "${url}"
    mv "${archive}.part" "${archive}"
fi
echo "${sha256}  ${archive}" | sha256sum -c --quiet - || { echo "${archive} does not have the pinned sha256" >&2; exit 2; }
source_dir="${work}/llama_cpp_python-${version}/vendor/llama.cpp"
[ -d "${source_dir}" ] || tar -xzf "${archive}" -C "${work}"
[ -x "${work}/tools/bin/cmake" ] || { python3 -m venv "${work}/tools" && "${work}/tools/bin/pip" install -q cmake ninja; }
export PATH="${work}/tools/bin:${PATH}"
build="${work}/build"
if [ ! -x "${build}/bin/llama-batched-bench" ]; then
    cmake -S "${source_dir}" -B "${build}" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=OFF -DLLAMA_BUILD_UI=OFF \
        -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_CURL=OFF \
        -DLLAMA_OPENSSL=OFF > "${work}/configure.log"
    start=$(date +%s)
    cmake --build "${build}" --target llama-server llama-batched-bench -j "$(nproc)" > "${work}/build.log"
    echo "built llama-server and llama-batched-bench in $(( $(date +%s) - start )) s (log: ${work}/build.log)"
fi

echo "$(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), prompt ${prompt}, generate ${generate}, sequences ${sequences}"
# Batches of 128 tokens, as the server Lectern starts reads prompts (LocalModelCatalog.promptBatch).
"${build}/bin/llama-batched-bench" -m "${model}" -c 8192 -b 128 -ub 128 -t "$(nproc)" \
    -npp "${prompt}" -ntg "${generate}" -npl "${sequences}" -pps 2>&1 | grep -E '^\|'
