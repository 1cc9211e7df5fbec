#!/usr/bin/env python3
"""Runs mpi_fault_check under mpirun with one fault and checks what follows it.

  mpi_fault_driver.py --timeout T [--survivors-report] -- mpirun ... mpi_fault_check KIND WHERE

The driver appends a fresh directory to the command (where the ranks write
their pids and rank 1 the time of its fault), and requires that
  - the job ends within T + 5 s of the fault;
  - with --survivors-report, ranks 0 and 2 each print an error naming their
    rank, the operation and rank 1, after at most T + 5 s (WHERE blocking or
    create: the watchdog's message, as they never return from MPI; at create
    it names every rank, not knowing which one is missing); without it
    (mpirun kills the job when a rank dies), mpirun's report names rank 1;
  - no process of the job is alive afterwards.
Whatever happens, it leaves no process behind: it continues and kills every
rank still alive and mpirun's process group. Prints [PASS]/[FAIL] lines and
exits 1 on any failure.
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

OPERATIONS = {
    "collective": "all_reduce 'grad'",
    "fused": "fused reduce_scatter 'update'",
    "overlap": "all_reduce 'activations'",
    "blocking": "fused reduce_scatter 'update' (allocating the shared window)",
    "create": "coconet_mpi_comm_create",
}
# Whom a survivor names as missing, where it cannot know which rank that is.
WAITED_FOR = {"create": "every rank of MPI_COMM_WORLD"}
SURVIVORS = (0, 2)
FAULTY = 1


def alive(pid):
    """Whether pid runs (a zombie has already ended)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--timeout", type=float, required=True)
    parser.add_argument("--survivors-report", action="store_true")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = [c for c in args.command if c != "--"]
    where = command[-1]
    bound = args.timeout + 5.0
    failures = []

    def check(ok, what):
        print(("[PASS] " if ok else "[FAIL] ") + what, flush=True)
        if not ok:
            failures.append(what)

    work = tempfile.mkdtemp(prefix="coconet_fault_")
    env = dict(os.environ, COCONET_TIMEOUT_S=str(args.timeout))
    job = subprocess.Popen(command + [work], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        # The job must end well before this; past it, it is a hang.
        output, _ = job.communicate(timeout=bound + 20)
        hung = False
    except subprocess.TimeoutExpired:
        os.killpg(job.pid, signal.SIGKILL)
        output, _ = job.communicate()
        hung = True
    ended = time.monotonic_ns()
    print(output, flush=True)
    pids = {}
    for name in os.listdir(work):
        if name.startswith("pid."):
            with open(os.path.join(work, name)) as f:
                pids[int(name[4:])] = int(f.read())
    # Give the kernel a moment to reap what mpirun killed last.
    deadline = time.monotonic() + 2.0
    while any(alive(p) for p in pids.values()) and time.monotonic() < deadline:
        time.sleep(0.05)
    strays = [r for r, p in sorted(pids.items()) if alive(p)]
    for r in strays:
        for sig in (signal.SIGCONT, signal.SIGKILL):
            try:
                os.kill(pids[r], sig)
            except OSError:
                pass
    try:
        os.killpg(job.pid, signal.SIGKILL)
    except OSError:
        pass

    check(not hung, f"the job ended (the driver's limit is {bound + 20:.0f} s)")
    check(sorted(pids) == [0, 1, 2], f"every rank recorded its pid ({sorted(pids)})")
    fault_file = os.path.join(work, "fault")
    if os.path.exists(fault_file):
        with open(fault_file) as f:
            after = (ended - int(f.read())) / 1e9
        check(after <= bound, f"the job ended {after:.2f} s after the fault (bound {bound:.1f} s)")
    else:
        check(False, "rank 1 recorded its fault")
    if args.survivors_report:
        operation = OPERATIONS[where]
        for r in SURVIVORS:
            line = re.search(rf"^survivor rank {r}: code (-?\d+) after ([\d.]+) s: (.*)$", output,
                             re.M)
            if where in ("blocking", "create"):
                # Stuck in MPI, the survivor does not return: its watchdog
                # prints and ends it (exit code 1, after the timeout).
                line = re.search(rf"^coconet: ()()(rank {r}: .* in a blocking MPI call.*)$",
                                 output, re.M)
            # The ranks waited for: rank 1, or a list holding it (a survivor
            # in a later phase also waits for the other survivor, who left).
            waited = re.search(r"waiting for ranks? ([\d, ]+)", line.group(3)) if line else None
            whom = WAITED_FOR.get(where, f"rank {FAULTY}")
            named = (line is not None and (line.group(1) == "" or int(line.group(1)) != 0) and
                     f"rank {r}: {operation}" in line.group(3) and
                     (whom in line.group(3).split(operation, 1)[1] or
                      (waited is not None and
                       str(FAULTY) in re.split(r"[, ]+", waited.group(1).strip()))))
            check(named, f"rank {r} failed naming {operation} and {whom}")
            if line and line.group(2):
                took = float(line.group(2))
                check(took <= bound, f"rank {r} failed after {took:.2f} s (bound {bound:.1f} s)")
    else:
        check(re.search(rf"process rank {FAULTY} with PID \d+ .*(signal|Killed)", output) is not None,
              f"mpirun reported that rank {FAULTY} died")
    check(not strays, "no process of the job is left: " +
          (f"ranks {strays} were (killed now)" if strays else "none alive"))
    shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
