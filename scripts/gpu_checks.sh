#!/usr/bin/env bash
# The GPU checks (docs/gpu.md), for a GPU machine without a toolchain: build
# and pack the binaries on a build machine, then run them on the GPU machine.
#
#   scripts/gpu_checks.sh pack            on the build machine, after building:
#                                         copies the `gpu` tests' binaries and
#                                         CTest files, libHalide.so (xz) and the
#                                         Open MPI libraries they link into .gpu/
#                                         (excluded from git); copy the checkout
#                                         with .gpu/ to the GPU machine
#   scripts/gpu_checks.sh run [OUT_DIR]   on the GPU machine, in that copy: every
#                                         `gpu` test, the CUDA libraries on thread
#                                         ranks and on an NCCL world, the
#                                         collective-library path on CUDA, the fused
#                                         Adam and norm benchmarks and the PyTorch
#                                         baselines; the log goes to OUT_DIR/gpu.log
#                                         (default: $OUT when set, else /tmp)
#   scripts/gpu_checks.sh bench [OUT_DIR] [OPTION...]
#                                         on the GPU machine: coconet_gpu_bench at
#                                         the sizes people train with and the same
#                                         work in PyTorch, joined into
#                                         OUT_DIR/gpu_bench.md (docs/performance.md);
#                                         each side starts no case after BUDGET_S
#                                         seconds (default 200: the whole fits in
#                                         ten minutes) and lists those it left;
#                                         OPTIONs (--workloads a,b, --ranks 1,2,
#                                         --sizes smoke) go to both
#   scripts/gpu_checks.sh profile [OUT_DIR] [OPTION...]
#                                         on the GPU machine: coconet_gpu_bench with
#                                         the OPTIONs (--workloads sgd_clip
#                                         --ranks 2) under Nsight Systems (nsys;
#                                         else Nsight Compute, ncu), three timed
#                                         calls a schedule; each kernel's launches
#                                         and time go to the log. With KERNEL=regex
#                                         (KERNEL=partial), Nsight Compute then
#                                         details the first launch of a kernel
#                                         whose name matches: throughput, memory
#                                         and L1 traffic, occupancy
#
# The GPU machine needs the NVIDIA driver, CUDA 13's runtime, NCCL and (for the
# baselines) PyTorch; it needs no compiler, Halide or Open MPI, and nothing is
# downloaded there.
set -uo pipefail
caller=$PWD # a relative OUT_DIR is taken from where the script was called
cd "$(dirname "$0")/.."
pack=.gpu

if [ "${1:-}" = pack ]; then
    build=${BUILD_DIR:-build}
    bins=(apps/coconet_aot_cuda_app apps/coconet_aot_shapes_cuda_app test/test_device
          tutorials/lesson_09_gpu
          apps/bench/coconet_gpu_adam_bench apps/bench/coconet_gpu_norm_bench
          apps/bench/coconet_gpu_bench)
    halide=$(ldd "$build/test/test_device" | awk '/libHalide.so/ {print $3}')
    rm -rf "$pack" && mkdir -p "$pack/lib" "$pack/build" || exit 1
    # The `gpu` tests' binaries and CTest files at their places in the build
    # folder, whose path is recorded: ctest -L gpu runs there as here.
    (cd "$build" && { find . -name CTestTestfile.cmake; printf '%s\n' "${bins[@]}"; } |
        xargs cp --parents -t "$OLDPWD/$pack/build") || exit 1
    echo "$PWD ${build#./}" >"$pack/where" # the checkout and the build folder in it
    # Open MPI and what it needs; the driver, CUDA's runtime and NCCL are there.
    (cd "$build" && ldd "${bins[@]}") | awk '/=> \// {print $3}' | sort -u |
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
usage() {
    echo "usage: $0 pack" >&2
    echo "       $0 run [OUT_DIR]   (the log goes to OUT_DIR/gpu.log; default: \$OUT, else /tmp)" >&2
    echo "       $0 bench [OUT_DIR] [--workloads a,b] [--ranks 1,2,4] [--sizes smoke|full]" >&2
    echo "           (results and OUT_DIR/gpu_bench.md there too; BUDGET_S seconds a side)" >&2
    echo "       $0 profile [OUT_DIR] [the same options]   (KERNEL=regex: one launch in detail)" >&2
    exit 2
}
mode=${1:-}
[[ $mode =~ ^(run|bench|profile)$ ]] || usage
shift
out_dir=${OUT:-/tmp}
if [ $# -gt 0 ] && [[ $1 != --* ]]; then
    out_dir=$1
    shift
fi
[ "$mode" != run ] || [ $# -eq 0 ] || usage
budget=${BUDGET_S:-200}
[[ $budget =~ ^[1-9][0-9]*$ ]] || usage
[[ $out_dir = /* ]] || out_dir=$caller/$out_dir
mkdir -p "$out_dir" || exit 1
log=$out_dir/gpu.log
exec > >(tee "$log") 2>&1
date
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
python3 -c 'import lzma, shutil; shutil.copyfileobj(lzma.open(".gpu/lib/libHalide.so.xz"), open(".gpu/lib/libHalide.so", "wb"))' ||
    exit 1
nccl=$(ldconfig -p | awk '/libnccl.so.2 / {print $NF; exit}')
[ -n "$nccl" ] || nccl=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(nvidia.nccl.__path__[0], "lib", "libnccl.so.2"))')
cudart=$(find /usr/local/cuda*/ -name 'libcudart.so.13' 2>/dev/null | head -1)
# cuBLAS, which MatMuls open at their first call: the toolkit's, else PyTorch's.
cublas=$(find /usr/local/cuda*/ -name 'libcublas.so.1[23]' 2>/dev/null | head -1)
[ -n "$cublas" ] || cublas=$(python3 -c 'import nvidia.cublas, os; d = os.path.join(nvidia.cublas.__path__[0], "lib"); print(os.path.join(d, sorted(f for f in os.listdir(d) if f.startswith("libcublas.so."))[0]))' 2>/dev/null)
echo "nccl: $nccl"
echo "cudart: $cudart"
echo "cublas: $cublas"
export LD_LIBRARY_PATH="$PWD/.gpu/lib:$(dirname "$nccl"):$(dirname "$cudart"):$(dirname "${cublas:-.}"):${LD_LIBRARY_PATH:-}"
command -v ctest >/dev/null || PATH=$PATH:$(python3 -c 'import cmake; print(cmake.CMAKE_BIN_DIR)')
read -r root build <.gpu/where
mkdir -p "$build" && cp -r .gpu/build/. "$build/" || exit 1
[ "$root" = "$PWD" ] || find "$build" -name CTestTestfile.cmake -exec sed -i "s|$root|$PWD|g" {} +
bin=$PWD/$build
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
if [ "$mode" = bench ]; then
    # Past its budget a side finishes the case it is in (the limit stops a
    # long one); the files hold every record measured by then.
    step $((budget + 70)) "$bin/apps/bench/coconet_gpu_bench" --device cuda --sizes full \
        --ranks 1,2,4 --reps 10 --budget-s "$budget" "$@" --out "$out_dir/gpu_bench.json"
    step $((budget + 70)) PYTHONUNBUFFERED=1 python3 apps/bench/torch_bench.py --sizes full \
        --ranks 1,2,4 --reps 20 --budget-s "$budget" "$@" --out "$out_dir/torch_bench.json"
    step 30 python3 scripts/gpu_bench_report.py "$out_dir/gpu_bench.json" \
        --torch "$out_dir/torch_bench.json" --out "$out_dir/gpu_bench.md"
    echo "$failed step(s) failed"
    exit $((failed > 0))
fi
if [ "$mode" = profile ]; then
    bench=("$bin/apps/bench/coconet_gpu_bench" --device cuda --sizes full --ranks 2 --reps 3
           --warmup 1 --budget-s "$budget" "$@" --out "$out_dir/profile.json")
    if command -v nsys >/dev/null; then
        step $((budget + 70)) nsys profile --force-overwrite true --output "$out_dir/profile" \
            "${bench[@]}"
        step 120 nsys stats --report cuda_gpu_kern_sum,cuda_api_sum "$out_dir/profile.nsys-rep"
    else
        step $((budget + 70)) ncu --print-summary per-kernel --section SpeedOfLight "${bench[@]}"
    fi
    if [ -n "${KERNEL:-}" ]; then
        step $((budget + 70)) ncu --kernel-name "regex:$KERNEL" --launch-count 1 \
            --section SpeedOfLight --section MemoryWorkloadAnalysis \
            --section ComputeWorkloadAnalysis --section Occupancy --section LaunchStats \
            "${bench[@]}"
    fi
    echo "$failed step(s) failed"
    exit $((failed > 0))
fi
step 420 ctest --test-dir "$build" -L gpu --output-on-failure -V
step 60 COCONET_DEVICE_COLLECTIVES=library "$bin/apps/coconet_aot_cuda_app" --gpu --ranks 2,3
step 60 COCONET_DEVICE_COLLECTIVES=library "$bin/apps/coconet_aot_cuda_app" --gpu --resident \
    --ranks 3 aot_adam_cuda aot_megatron_mlp_cuda aot_embedding_all_to_all_cuda \
    aot_gemv_all_reduce_cuda aot_gemm_all_to_all_cuda
step 60 "$bin/apps/bench/coconet_gpu_adam_bench" --reps 50
step 120 PYTHONUNBUFFERED=1 python3 apps/bench/torch_adam.py --reps 50
step 60 "$bin/apps/bench/coconet_gpu_adam_bench" --reps 50
step 60 "$bin/apps/bench/coconet_gpu_norm_bench" --reps 20
step 60 python3 apps/bench/torch_norm.py --reps 20
echo "$failed check(s) failed"
date
