#!/usr/bin/env bash
# The GPU checks of a lent GPU machine, in one prepared call (docs/gpu.md).
#
#   scripts/gpu_lease.sh pack   here, after building: copies the GPU test
#                               binaries, libHalide.so (xz) and the Open MPI
#                               libraries they link into .gpu/ (ignored by git;
#                               carried to the device machine)
#   scripts/gpu_lease.sh run    there: every `gpu` test, the CUDA libraries on
#                               thread ranks and on an NCCL world, the library
#                               path on CUDA, the fused Adam benchmark and the
#                               PyTorch baselines; the log goes to $OUT/gpu.log
#
# The device machine has the driver, CUDA 13, NCCL and PyTorch but no Halide or
# Open MPI, and nothing can be fetched there: the binaries are built here.
set -uo pipefail
cd "$(dirname "$0")/.."
pack=.gpu

if [ "${1:-}" = pack ]; then
    build=${BUILD_DIR:-build}
    bins=("$build/apps/coconet_aot_cuda_app" "$build/test/test_device"
          "$build/tutorials/lesson_09_gpu" "$build/apps/bench/coconet_gpu_adam_bench")
    halide=$(ldd "$build/test/test_device" | awk '/libHalide.so/ {print $3}')
    rm -rf "$pack" && mkdir -p "$pack/bin" "$pack/lib" || exit 1
    cp "${bins[@]}" "$pack/bin/" || exit 1
    # Open MPI and what it needs; the driver, CUDA's runtime and NCCL are there.
    ldd "${bins[@]}" | awk '/=> \// {print $3}' | sort -u |
        grep -E 'lib(mpi|open-|hwloc|event|udev)' | xargs -r cp -L -t "$pack/lib/"
    cached=${XDG_CACHE_HOME:-$HOME/.cache}/coconet/libHalide.so.xz
    if [ ! -f "$cached" ] || [ "$cached" -ot "$halide" ]; then
        mkdir -p "$(dirname "$cached")"
        echo "compressing $halide (a few minutes)"
        xz -9 -T0 -c "$halide" >"$cached.tmp" && mv "$cached.tmp" "$cached" || exit 1
    fi
    cp "$cached" "$pack/lib/"
    grep -qx "/$pack/" .git/info/exclude 2>/dev/null ||
        { mkdir -p .git/info && echo "/$pack/" >>.git/info/exclude; }
    du -sh "$pack"
    exit 0
fi
[ "${1:-}" = run ] || { echo "usage: $0 pack|run" >&2; exit 2; }

log=${OUT:-/tmp}/gpu.log
exec > >(tee "$log") 2>&1
date
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
python3 -c 'import lzma, shutil; shutil.copyfileobj(lzma.open(".gpu/lib/libHalide.so.xz"), open(".gpu/lib/libHalide.so", "wb"))' ||
    exit 1
nccl=$(ldconfig -p | awk '/libnccl.so.2 / {print $NF; exit}')
[ -n "$nccl" ] || nccl=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(nvidia.nccl.__path__[0], "lib", "libnccl.so.2"))')
cudart=$(find /usr/local/cuda*/ -name 'libcudart.so.13' 2>/dev/null | head -1)
echo "nccl: $nccl"
echo "cudart: $cudart"
export LD_LIBRARY_PATH="$PWD/.gpu/lib:$(dirname "$nccl"):$(dirname "$cudart"):${LD_LIBRARY_PATH:-}"
bin=$PWD/.gpu/bin
failed=0
step() { # step SECONDS CMD...: one check, against a deadline; the log names each
    local limit=$1 start=$SECONDS
    shift
    echo "== $*"
    timeout -k 5 "$limit" env "$@"
    local rc=$?
    echo "rc=$rc ($((SECONDS - start)) s)"
    [ $rc -eq 0 ] || failed=$((failed + 1))
}
step 120 "$bin/coconet_aot_cuda_app" --gpu --ranks 1,3,4
step 120 COCONET_DEVICE_COLLECTIVES=library "$bin/coconet_aot_cuda_app" --gpu --ranks 2,3
step 120 "$bin/coconet_aot_cuda_app" --gpu --nccl --ranks 1,2
step 60 "$bin/lesson_09_gpu"
step 60 "$bin/coconet_gpu_adam_bench" --reps 50
step 240 COCONET_TEST_DEVICE=cuda "$bin/test_device"
step 120 PYTHONUNBUFFERED=1 python3 apps/bench/torch_adam.py --reps 50
step 60 "$bin/coconet_gpu_adam_bench" --reps 50
echo "$failed check(s) failed"
date
