#!/usr/bin/env bash
# Runs a command with a fault injected (COCONET_FAULT, src/runtime/core/Fault.h) and
# checks how it ends:
#   fault_test.sh --bound S [--job-bound S] [--expect REGEX]... -- command...
# - every --expect regex (grep -E) appears in its output;
# - every "[FAIL] ... after X s" line has X <= --bound (the surviving ranks'
#   error came within the timeout plus the margin);
# - the whole job ends within --job-bound seconds (default 90): no hang;
# - no process of the job is left afterwards (it runs in a session of its
#   own; leftovers are resumed, killed and reported).
set -u
bound=0 job_bound=90 expects=()
while (($#)); do
    case "$1" in
    --bound) bound=$2; shift 2 ;;
    --job-bound) job_bound=$2; shift 2 ;;
    --expect) expects+=("$2"); shift 2 ;;
    --) shift; break ;;
    *) echo "fault_test.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
out=$(mktemp)
trap 'rm -f "$out"' EXIT
start=$(date +%s.%N)
setsid --wait timeout -k 5 "$job_bound" "$@" >"$out" 2>&1 &
launcher=$!
sleep 0.2
sid=$(ps -o sid= -p "$launcher" 2>/dev/null | tr -d ' ')
wait "$launcher"
rc=$?
elapsed=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
ok=1
fail() { echo "[FAIL] $*"; ok=0; }
if ((rc == 124 || rc == 137)); then
    fail "the job did not end within $job_bound s"
fi
for e in "${expects[@]}"; do
    grep -Eq -- "$e" "$out" || fail "no line matches: $e"
done
while read -r t; do
    awk -v t="$t" -v b="$bound" 'BEGIN { exit !(t <= b) }' ||
        fail "a rank's error came after $t s (bound $bound s)"
done < <(grep -o '\[FAIL\] .* after [0-9.]* s' "$out" | sed 's/.* after \([0-9.]*\) s/\1/')
sleep 1
if [[ -n "$sid" ]]; then
    left=$(ps -eo pid=,sid=,stat=,comm= | awk -v s="$sid" '$2 == s && $3 !~ /^Z/ { print $1 " " $4 }')
    if [[ -n "$left" ]]; then
        fail "processes left behind: $left"
        for pid in $(echo "$left" | awk '{ print $1 }'); do
            kill -CONT "$pid" 2>/dev/null
            kill -KILL "$pid" 2>/dev/null
        done
    fi
fi
echo "---- output (exit code $rc, $elapsed s) ----"
cat "$out"
if ((ok)); then
    echo "[PASS] fault handled in $elapsed s"
    exit 0
fi
exit 1
