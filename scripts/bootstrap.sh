#!/usr/bin/env bash
# Installs what is missing and configures build/ (idempotent; seconds when all is present).
#   apt:   g++, python3-venv, Open MPI, Catch2 v2, ccache, openssh-client (mpirun wants an rsh agent),
#          OpenBLAS (the benchmark's compute reference), PoCL + the OpenCL loader (the `device` tests),
#          CLBlast (the device tests' MatMuls through a BLAS on OpenCL)
#   .venv: halide==21.*, cmake>=3.28, ninja (PyPI wheels)
#   build/: Ninja, the build type CMakeLists.txt defaults to (optimized), ccache launcher when
#           available, Halide from .venv
# Environment: COCONET_BUILD_DIR (default build), COCONET_BUILD_TYPE (default: CMakeLists.txt's),
#              COCONET_CMAKE_ARGS (extra configure args, used only when configuring).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="$ROOT/.venv"
BUILD_DIR="${COCONET_BUILD_DIR:-build}"
BUILD_TYPE="${COCONET_BUILD_TYPE:-}" # empty: CMakeLists.txt picks its default

log() { echo "[bootstrap] $*"; }
die() { echo "[bootstrap] error: $*" >&2; exit 1; }

# --- apt packages ------------------------------------------------------------------
APT_PKGS=(g++ python3 python3-venv libopenmpi-dev openmpi-bin catch2 ccache openssh-client
          libopenblas-dev pocl-opencl-icd ocl-icd-opencl-dev libclblast1)
if command -v dpkg-query >/dev/null 2>&1; then
    missing=()
    for p in "${APT_PKGS[@]}"; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
            missing+=("$p")
        fi
    done
    if ((${#missing[@]})); then
        SUDO=()
        if [[ $(id -u) -ne 0 ]]; then
            command -v sudo >/dev/null 2>&1 || die "need root or sudo to install: ${missing[*]}"
            SUDO=(sudo -n)
        fi
        log "apt: installing ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        "${SUDO[@]}" apt-get update -qq </dev/null
        "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null >/dev/null
    else
        log "apt: all packages present"
    fi
else
    log "apt: no dpkg here; assuming ${APT_PKGS[*]} are provided otherwise"
fi

# --- .venv with Halide 21, CMake >= 3.28, ninja ------------------------------------------
if [[ ! -x "$VENV/bin/python" ]]; then
    log "venv: creating .venv"
    python3 -m venv "$VENV"
fi

site_pkgs() { echo "$VENV"/lib/python3*/site-packages; }
halide_ok() { compgen -G "$(site_pkgs)/halide-21.*.dist-info" >/dev/null &&
              compgen -G "$(site_pkgs)/halide/lib*/cmake/Halide/HalideConfig.cmake" >/dev/null; }
cmake_ok() {
    [[ -x "$VENV/bin/cmake" ]] || return 1
    local v
    v="$("$VENV/bin/cmake" --version 2>/dev/null | head -n1 | awk '{print $3}')"
    [[ -n "$v" ]] || return 1
    local major minor
    IFS=. read -r major minor _ <<<"$v"
    ((major > 3 || (major == 3 && minor >= 28)))
}
ninja_ok() { [[ -x "$VENV/bin/ninja" ]] && "$VENV/bin/ninja" --version >/dev/null 2>&1; }

pip_missing=()
halide_ok || pip_missing+=("halide==21.*")
cmake_ok || pip_missing+=("cmake>=3.28")
ninja_ok || pip_missing+=("ninja")
if ((${#pip_missing[@]})); then
    log "venv: pip install ${pip_missing[*]}"
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check "${pip_missing[@]}" </dev/null
    halide_ok || die "Halide 21 not found in .venv after pip install"
    cmake_ok || die "cmake >= 3.28 not found in .venv after pip install"
    ninja_ok || die "ninja not found in .venv after pip install"
else
    log "venv: halide 21, cmake, ninja present"
fi

HALIDE_ROOT="$(site_pkgs)/halide"
HALIDE_DIR="$(dirname "$(compgen -G "$HALIDE_ROOT/lib*/cmake/Halide/HalideConfig.cmake" | head -n1)")"

# --- configure build/ -----------------------------------------------------------------
if [[ -f "$BUILD_DIR/build.ninja" && -f "$BUILD_DIR/CMakeCache.txt" ]]; then
    log "build: $BUILD_DIR/ already configured (cmake --build re-runs configure when needed)"
else
    if [[ -f "$BUILD_DIR/CMakeCache.txt" ]] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$BUILD_DIR/CMakeCache.txt"; then
        die "$BUILD_DIR/ was configured with another generator; remove it and re-run"
    fi
    args=(-S . -B "$BUILD_DIR" -G Ninja
          -DCMAKE_MAKE_PROGRAM="$VENV/bin/ninja"
          -DHalide_DIR="$HALIDE_DIR"
          -DCMAKE_PREFIX_PATH="$HALIDE_ROOT")
    if [[ -n "$BUILD_TYPE" ]]; then
        args+=(-DCMAKE_BUILD_TYPE="$BUILD_TYPE")
    fi
    if command -v ccache >/dev/null 2>&1; then
        args+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    fi
    # shellcheck disable=SC2206
    args+=(${COCONET_CMAKE_ARGS:-})
    log "build: configuring $BUILD_DIR/ (${BUILD_TYPE:-default build type}, Ninja, Halide from .venv)"
    cfg_log="$(mktemp)"
    if ! "$VENV/bin/cmake" "${args[@]}" >"$cfg_log" 2>&1 </dev/null; then
        cat "$cfg_log" >&2
        rm -f "$cfg_log" "$BUILD_DIR/build.ninja"
        die "configure failed (log above)"
    fi
    grep -E '^-- CoCoNet:' "$cfg_log" | sed 's/^-- /[bootstrap]   /' || true
    mv -f "$cfg_log" "$BUILD_DIR/configure.log"
fi
log "done"
