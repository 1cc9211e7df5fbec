#!/usr/bin/env bash
# Benchmarks (docs/performance.md): builds coconet_bench, runs it on thread
# ranks (2 and 4) and under mpirun -np 2 and 4 (the collective rows also on the
# deterministic path, COCONET_MPI_COLLECTIVES=deterministic), then writes
# build/bench/results.json, build/bench/results.md (the tables) and a plot per
# app (build/bench/<app>.png). Extra arguments go to every coconet_bench run,
# e.g. ./scripts/bench.sh --apps adam,lamb --reps 3 --sizes 20,22
# --torch (first) also installs PyTorch into .venv when it is missing and runs
# apps/bench/torch_bench.py on this CPU at the benchmark's shapes, for the
# report's PyTorch table.
# To put a full run on docs/performance.md:
#   .venv/bin/python scripts/bench_report.py --doc docs/performance.md \
#       [--torch build/bench/torch_cpu.json] build/bench build/bench/run_*.json
#   cp build/bench/results.json build/bench/*.png docs/performance/
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
OUT="$BUILD_DIR/bench"
mkdir -p "$OUT"
TORCH=0
if [[ "${1:-}" == "--torch" ]]; then
    TORCH=1
    shift
fi

echo "[bench] building coconet_bench (an AOT library per app, variant and size)"
cmake --build "$BUILD_DIR" -j2 --target coconet_bench
BENCH="$BUILD_DIR/apps/bench/coconet_bench"

rm -f "$OUT"/run_*.json
echo "[bench] thread ranks"
"$BENCH" --ranks 2,4 --out "$OUT/run_threads.json" "$@"
if command -v mpirun > /dev/null; then
    for np in 2 4; do
        echo "[bench] mpirun -np $np"
        OMPI_MCA_btl_vader_single_copy_mechanism=none \
            mpirun --allow-run-as-root --oversubscribe -np "$np" \
            "$BENCH" --mpi --out "$OUT/run_mpi_np$np.json" "$@"
    done
    # The collective rows on the rank-order path, unless --apps leaves them out.
    if [[ " $* " != *" --apps "* || " $* " == *collective* ]]; then
        for np in 2 4; do
            echo "[bench] mpirun -np $np, COCONET_MPI_COLLECTIVES=deterministic"
            COCONET_MPI_COLLECTIVES=deterministic OMPI_MCA_btl_vader_single_copy_mechanism=none \
                mpirun --allow-run-as-root --oversubscribe -np "$np" \
                "$BENCH" --mpi --apps collective_all_reduce,collective_all_to_all \
                --out "$OUT/run_mpi_det_np$np.json" "$@"
        done
    fi
else
    echo "[bench] no mpirun: MPI runs skipped"
fi

if ! python -c "import matplotlib" 2> /dev/null; then
    echo "[bench] installing matplotlib into .venv"
    python -m pip install --quiet matplotlib
fi
REPORT_ARGS=()
if [[ $TORCH == 1 ]]; then
    if ! python -c "import torch" 2> /dev/null; then
        echo "[bench] installing PyTorch into .venv"
        python -m pip install --quiet torch
    fi
    echo "[bench] PyTorch on this CPU"
    python "$ROOT/apps/bench/torch_bench.py" --device cpu --sizes cpu --ranks 2,4 \
        --out "$OUT/torch_cpu.json"
    REPORT_ARGS=(--torch "$OUT/torch_cpu.json")
fi
python "$ROOT/scripts/bench_report.py" "${REPORT_ARGS[@]}" "$OUT" "$OUT"/run_*.json
