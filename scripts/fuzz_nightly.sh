#!/usr/bin/env bash
# Nightly fuzzing: test_fuzz's random programs and schedules against the
# reference, many more than CI runs (5,000 by default), in batches run side by
# side, with progress after each batch. Each failing case is printed with the
# command that reruns it alone.
#   ./scripts/fuzz_nightly.sh [cases] [seed]
# cases: default 5000; seed: default COCONET_FUZZ_SEED, else today's date
# (a new set of cases every night). FUZZ_JOBS batches at a time (default: the
# cores), FUZZ_BATCH cases per batch (default 100).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"

cases="${1:-5000}"
seed="${2:-${COCONET_FUZZ_SEED:-$(date +%Y%m%d)}}"
jobs="${FUZZ_JOBS:-$(nproc)}"
batch="${FUZZ_BATCH:-100}"
exe="$BUILD_DIR/test/test_fuzz"

cmake --build "$BUILD_DIR" -j"$jobs" --target test_fuzz
logs="$(mktemp -d)"
echo "[fuzz] $cases cases, seed $seed, $jobs batches of $batch at a time; logs in $logs"

t0=$SECONDS
done_cases=0
failed=0
# The number of cases in the batch starting at case $1.
batch_size() {
    echo $((cases - $1 < batch ? cases - $1 : batch))
}
# Runs the batch starting at case $1, into its log.
run_batch() {
    COCONET_FUZZ_SEED="$seed" COCONET_FUZZ_FIRST="$1" COCONET_FUZZ_ITERATIONS="$(batch_size "$1")" \
        "$exe" >"$logs/$1.log" 2>&1
}
# Waits for the batch $2 (process $1) and reports it: the failing case, what
# failed and how to rerun it.
finish_batch() {
    local pid=$1 first=$2 count
    count=$(batch_size "$2")
    if ! wait "$pid"; then
        failed=$((failed + 1))
        echo "[fuzz] FAILED in cases $first to $((first + count - 1)):"
        grep -E "seed [0-9]+, case|REQUIRE|with expansion|FAILED|rerun" "$logs/$first.log" ||
            cat "$logs/$first.log"
    fi
    done_cases=$((done_cases + count))
    echo "[fuzz] $done_cases/$cases cases, $failed failed batches, $((SECONDS - t0)) s"
}

pids=()
firsts=()
for ((first = 0; first < cases; first += batch)); do
    if ((${#pids[@]} >= jobs)); then
        finish_batch "${pids[0]}" "${firsts[0]}"
        pids=("${pids[@]:1}")
        firsts=("${firsts[@]:1}")
    fi
    run_batch "$first" &
    pids+=($!)
    firsts+=("$first")
done
for i in "${!pids[@]}"; do
    finish_batch "${pids[$i]}" "${firsts[$i]}"
done

if ((failed > 0)); then
    echo "[fuzz] FAILED: $failed batches (seed $seed); logs in $logs"
    exit 1
fi
rm -rf "$logs"
echo "[fuzz] OK: $cases cases on seed $seed in $((SECONDS - t0)) s"
