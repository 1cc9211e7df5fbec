#!/usr/bin/env python3
"""Markdown tables from coconet_gpu_bench's records (apps/bench/gpu_bench.cpp),
joined with apps/bench/torch_bench.py's where given, on (workload, size,
ranks):

    scripts/gpu_bench_report.py gpu_bench.json... [--torch torch_bench.json] [--out report.md]

Ratios (time ratios > 1: CoCoNet is faster):
  eager / CoCoNet, compile / CoCoNet   PyTorch's time over CoCoNet's;
  % of copy                            CoCoNet's GB/s (its bytes model) over the
                                       device's copy bandwidth, both measured by
                                       coconet_gpu_bench in one run;
  cuBLAS / CoCoNet                     torch.matmul's time for the MatMuls alone over
                                       CoCoNet's for the whole workload.
The first table takes each case's fastest schedule, the second lists every one;
then the cases whose fastest schedule misses a target (at least PyTorch eager's
speed and 0.8x torch.compile's; memory-bound cases at 80% of the copy bandwidth
or more, those with MatMuls at 0.7x cuBLAS or more), and the cases only one side
measured (a run cut short by --budget-s).
Exits 1 when there are no CoCoNet records or one failed its check.
"""
import argparse
import json
import sys


def load(path):
    try:
        with open(path) as f:
            records = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"{path}: {e}")
    if not isinstance(records, list):
        sys.exit(f"{path}: expected a list of records")
    return records


def key(r):
    return (r["workload"], r["size"], r["ranks"])


def ratio(num, den, fmt="{:.2f}"):
    return fmt.format(num / den) if num and den else ""


def row(r, torch_by_case):
    """The cells of one CoCoNet record with its PyTorch counterparts."""
    other = torch_by_case.get(key(r), {})
    ms = r["ms"]
    eager, compiled, cublas = (other.get(i, {}).get("ms") for i in
                               ("torch_eager", "torch_compile", "cublas"))
    gbps, copy = r.get("gbps"), r.get("copy_gbps")
    return [
        r["workload"], r["size"], str(r["ranks"]), r["schedule"], f"{ms:.3f}",
        f"{gbps:.1f}" if gbps else "", ratio(100 * (gbps or 0), copy, "{:.0f}%"),
        f"{r['gflops']:.1f}" if r.get("gflops") else "",
        f"{eager:.3f}" if eager else "", ratio(eager, ms),
        f"{compiled:.3f}" if compiled else "", ratio(compiled, ms), ratio(cublas, ms),
        r["check"] if r["ok"] else f"**MISMATCH** ({r['check']})",
    ]


# (name, the cell's value from (record, PyTorch's times), the least it may be)
TARGETS = [
    ("eager / CoCoNet", lambda r, t: t.get("torch_eager") and t["torch_eager"] / r["ms"], 1.0),
    ("compile / CoCoNet", lambda r, t: t.get("torch_compile") and t["torch_compile"] / r["ms"], 0.8),
    ("fraction of copy bandwidth", lambda r, t: not t.get("cublas") and r.get("gbps") and r.get("copy_gbps") and
     r["gbps"] / r["copy_gbps"], 0.8),
    ("cuBLAS / CoCoNet", lambda r, t: t.get("cublas") and t["cublas"] / r["ms"], 0.7),
]


def misses(r, torch_by_case):
    """The targets a record misses, as 'name value < least'."""
    times = {impl: o.get("ms") for impl, o in torch_by_case.get(key(r), {}).items()}
    out = []
    for name, value, least in TARGETS:
        v = value(r, times)
        if v and v < least:
            out.append(f"{name} {v:.2f} < {least}")
    return out


HEADER = ["workload", "size", "R", "schedule", "ms", "GB/s", "% of copy", "GFLOP/s", "eager ms",
          "eager / CoCoNet", "compile ms", "compile / CoCoNet", "cuBLAS / CoCoNet", "check"]


def table(rows):
    lines = ["| " + " | ".join(HEADER) + " |", "|" + " --- |" * len(HEADER)]
    lines += ["| " + " | ".join(cells) + " |" for cells in rows]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("coconet", nargs="+", help="coconet_gpu_bench --out files")
    parser.add_argument("--torch", help="torch_bench.py --out file")
    parser.add_argument("--out", help="write the markdown here (default: stdout)")
    args = parser.parse_args()
    records = [r for path in args.coconet for r in load(path) if r.get("impl") == "coconet"]
    if not records:
        sys.exit(f"{' '.join(args.coconet)}: no CoCoNet records")
    torch_records = load(args.torch) if args.torch else []
    torch_by_case = {}
    for r in torch_records:
        torch_by_case.setdefault(key(r), {})[r["impl"]] = r

    devices = sorted({r["device"] for r in records})
    copies = sorted({f"{r['copy_gbps']:.1f}" for r in records if r["copy_gbps"]})
    out = [f"CoCoNet on {', '.join(devices)} ({records[0]['backend']}); device copy bandwidth "
           f"{', '.join(copies) or '-'} GB/s."]
    if torch_records:
        torch_devices = sorted({r["device"] for r in torch_records})
        out.append(f"PyTorch ({torch_records[0]['backend']}) on {', '.join(torch_devices)}.")
        if torch_devices != devices:
            out.append("**Warning: the two files come from different devices.**")
    best = {}
    for r in records:
        if key(r) not in best or r["ms"] < best[key(r)]["ms"]:
            best[key(r)] = r
    out += ["", "Fastest schedule per case:", "",
            table(row(r, torch_by_case) for r in best.values()), "",
            "Every schedule:", "", table(row(r, torch_by_case) for r in records)]
    behind = [(r, misses(r, torch_by_case)) for r in best.values()]
    behind = [f"- {r['workload']} {r['size']} R={r['ranks']} ({r['schedule']}): " + ", ".join(m)
              for r, m in behind if m]
    out += ["", f"Cases whose fastest schedule misses a target: {len(behind)} of {len(best)}."]
    out += [""] + behind if behind else []
    torch_only = sorted(set(torch_by_case) - set(best))
    if torch_records:
        coconet_only = sorted(set(best) - set(torch_by_case))
        for side, cases in (("CoCoNet", torch_only), ("PyTorch", coconet_only)):
            if cases:
                out += ["", f"Not measured by {side} (workload, size, R): " +
                        "; ".join(f"{w} {s} R={r}" for w, s, r in cases) + "."]
    text = "\n".join(out) + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    failed = [r for r in records if not r["ok"]]
    if failed:
        sys.exit(f"{len(failed)} CoCoNet records failed their check")


if __name__ == "__main__":
    main()
