#!/usr/bin/env bash
# Runs a command with a fault injected (COCONET_FAULT, src/runtime/core/Fault.h) and
# checks how it ends:
#   fault_test.sh --bound S [--job-bound S] [--expect REGEX]... -- command...
# - every --expect regex (grep -E) appears in its output;
# - there is a "[FAIL] <library> on N ranks, after X s: <error>" line, and
#   every one has X <= --bound (the surviving ranks' error came within the
#   timeout plus the margin; X is the measured time, not an "after N s" inside
#   the error, such as the configured timeout);
# - the whole job ends within --job-bound seconds (default 90): no hang, and
#   with a non-zero status (the injected fault is reported, not swallowed);
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
# The job's session: setsid gives the launcher one of its own, at once or
# after a fork; until then it is still ours.
own_sid=$(ps -o sid= -p $$ | tr -d ' ')
sid=
for _ in $(seq 50); do
    sid=$(ps -o sid= -p "$launcher" 2>/dev/null | tr -d ' ')
    [[ -z "$sid" || "$sid" != "$own_sid" ]] && break
    sleep 0.1
done
wait "$launcher"
rc=$?
elapsed=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
ok=1
fail() { echo "[FAIL] $*"; ok=0; }
if ((rc == 124 || rc == 137)); then
    fail "the job did not end within $job_bound s"
elif ((rc == 0)); then
    fail "the job exited 0: a fault was injected, so some rank must report a failure"
fi
for e in "${expects[@]}"; do
    grep -Eq -- "$e" "$out" || fail "no line matches: $e"
done
# The measured time comes before the first colon (library names have none);
# the error after it may name times of its own ("timed out after 3.0 s").
times=$(grep -o '\[FAIL\] [^:]* on [0-9]* ranks, after [0-9.]* s:' "$out" |
    sed 's/.* after \([0-9.]*\) s:$/\1/')
[[ -n "$times" ]] || fail "no line \"[FAIL] <library> on N ranks, after X s: <error>\" to bound"
for t in $times; do
    awk -v t="$t" -v b="$bound" 'BEGIN { exit !(t <= b) }' ||
        fail "a rank's error came after $t s (bound $bound s)"
done
sleep 1
if [[ -z "$sid" || "$sid" == "$own_sid" ]]; then
    fail "could not read the job's session id (got '$sid'): leftover processes unchecked"
else
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
