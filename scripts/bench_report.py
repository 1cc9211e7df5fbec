#!/usr/bin/env python3
"""Merges coconet_bench runs into <out>/results.json and writes <out>/results.md
(the benchmark targets, each cell met or missed, then a table per app)
and, unless --no-plots, a plot per app (<out>/<app>.png): time per step against
size, one line per variant, the memory bound T_min dashed. With --doc, the
regions of a Markdown file between `<!-- bench_report: targets -->` (or
`default`, `autoscheduled`, `results`) and `<!-- /bench_report -->` get the same tables.

With --torch <torch.json> (apps/bench/torch_bench.py --device cpu), a table
puts PyTorch on the same CPU beside the thread-rank rows (region `torch`).

    bench_report.py [--no-plots] [--doc docs/performance.md] [--torch torch.json]
                    <out dir> <run.json>...
"""
import json
import math
import os
import platform
import re
import sys

FIELDS = ["app", "variant", "backend", "ranks", "n", "seconds_median", "seconds_min",
          "seconds_max", "bytes_per_rank", "stream_GBps", "t_min_seconds"]
# compute_<app> rows time the kernels alone: the app's Halide schedule
# ("halide", in the CoCoNet column) against OpenBLAS ("blas").
VARIANTS = ["unscheduled", "autoscheduled", "default", "coconet", "shapes", "halide", "baseline",
            "blas"]


def load(paths):
    records = []
    for path in paths:
        with open(path) as f:
            for r in json.load(f):
                missing = [k for k in FIELDS if k not in r]
                if missing:
                    sys.exit(f"{path}: a record lacks {missing}")
                records.append(r)
    return records


def cases(records):
    """{(app, backend, ranks): {n: {variant: record}}}"""
    out = {}
    for r in records:
        key = (r["app"], r["backend"], r["ranks"])
        out.setdefault(key, {}).setdefault(r["n"], {})[r["variant"]] = r
    return out


def ms(r):
    return f"{r['seconds_median'] * 1e3:.3f}" if r else "–"


def table(records):
    lines = []
    for (app, backend, ranks), by_n in sorted(cases(records).items()):
        stream = next(iter(next(iter(by_n.values())).values()))["stream_GBps"]
        lines += [f"### {app}, {backend}, {ranks} ranks (STREAM triad {stream:.1f} GB/s)", "",
                  "| n | unscheduled ms | CoCoNet ms | run-time shapes ms | baseline ms | BLAS ms "
                  "| CoCoNet vs baseline | CoCoNet vs BLAS | CoCoNet vs unscheduled "
                  "| CoCoNet T/T_min | run-time shapes / CoCoNet |",
                  "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for n, v in sorted(by_n.items()):
            c = v.get("coconet") or v.get("halide")
            b, blas, u = v.get("baseline"), v.get("blas"), v.get("unscheduled")
            s = v.get("shapes")
            shapes_ratio = (f"{s['seconds_median'] / c['seconds_median']:.2f}" if s and c
                            else "–")

            def speedup(other):
                return f"{other['seconds_median'] / c['seconds_median']:.2f}x" if other and c else "–"
            bound = (f"{c['seconds_median'] / c['t_min_seconds']:.2f}"
                     if c and c["t_min_seconds"] else "–")
            lines.append(f"| 2^{int(math.log2(n))} | {ms(u)} | {ms(c)} | {ms(s)} | {ms(b)} "
                         f"| {ms(blas)} | {speedup(b)} | {speedup(blas)} | {speedup(u)} | {bound} "
                         f"| {shapes_ratio} |")
        lines.append("")
    return "\n".join(lines)


def default(records):
    """The apps with a `default` variant (their CoCoNet schedule, their compute
    left to the default schedule): its time against the hand-scheduled
    program, the program nobody scheduled and the baselines."""
    lines = ["| case | n | default ms | hand-scheduled ms | unscheduled ms | baseline ms | BLAS ms "
             "| hand / default | baseline / default | BLAS / default |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for (app, backend, ranks), by_n in sorted(cases(records).items()):
        for n, v in sorted(by_n.items()):
            d = v.get("default")
            if not d:
                continue
            c, u, b, blas = v.get("coconet"), v.get("unscheduled"), v.get("baseline"), v.get("blas")

            def speedup(other):
                return f"{other['seconds_median'] / d['seconds_median']:.2f}" if other else "–"
            lines.append(f"| {app}, {backend}, R = {ranks} | 2^{int(math.log2(n))} | {ms(d)} "
                         f"| {ms(c)} | {ms(u)} | {ms(b)} | {ms(blas)} | {speedup(c)} "
                         f"| {speedup(b)} | {speedup(blas)} |")
    if len(lines) == 2:
        return "No default-schedule records in this run.\n"
    return "\n".join(lines) + "\n"


# torch_bench.py's workload names, where they differ from coconet_bench's apps.
TORCH_NAMES = {"two_stage_pipeline": "pipeline_stage"}


def torch_table(records, torch_records):
    """PyTorch on the same CPU (eager, torch.compile'd, and its MatMuls alone)
    beside CoCoNet on as many thread ranks: the program nobody scheduled, the
    default schedule's and the hand-scheduled one."""
    torch_by = {}
    for t in torch_records:
        key = (TORCH_NAMES.get(t["workload"], t["workload"]), t["n"], t["ranks"])
        torch_by.setdefault(key, {})[t["impl"]] = t["ms"]
    lines = ["| case | n | CoCoNet unscheduled ms | CoCoNet default ms | CoCoNet hand ms "
             "| PyTorch eager ms | torch.compile ms | PyTorch MatMuls alone ms "
             "| PyTorch best / CoCoNet default |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for (app, backend, ranks), by_n in sorted(cases(records).items()):
        if backend != "threads":
            continue
        for n, v in sorted(by_n.items()):
            t = torch_by.get((app, n, ranks))
            if not t:
                continue
            ours = v.get("default") or v.get("coconet")
            best = min(t.get(k, math.inf) for k in ("torch_eager", "torch_compile"))

            def cell(name):
                return f"{t[name]:.3f}" if name in t else "–"
            lines.append(f"| {app}, R = {ranks} | 2^{int(math.log2(n))} | {ms(v.get('unscheduled'))} "
                         f"| {ms(v.get('default'))} | {ms(v.get('coconet'))} | {cell('torch_eager')} "
                         f"| {cell('torch_compile')} | {cell('blas')} "
                         f"| {best / (ours['seconds_median'] * 1e3):.2f} |")
    if len(lines) == 2:
        return "No PyTorch records for this run's cases.\n"
    return "\n".join(lines) + "\n"


def autoscheduled(records):
    """The apps with an `autoscheduled` variant (compute left to a Halide
    autoscheduler): its time against the unscheduled program, the CoCoNet
    schedule and the BLAS baseline, per case and size."""
    lines = ["| case | n | autoscheduled ms | unscheduled ms | CoCoNet ms | BLAS ms "
             "| autoscheduled / unscheduled | autoscheduled / BLAS |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for (app, backend, ranks), by_n in sorted(cases(records).items()):
        for n, v in sorted(by_n.items()):
            a = v.get("autoscheduled")
            if not a:
                continue
            u, c, blas = v.get("unscheduled"), v.get("coconet"), v.get("blas")

            def ratio(other):
                return f"{a['seconds_median'] / other['seconds_median']:.2f}" if other else "–"
            lines.append(f"| {app}, {backend}, R = {ranks} | 2^{int(math.log2(n))} | {ms(a)} "
                         f"| {ms(u)} | {ms(c)} | {ms(blas)} | {ratio(u)} | {ratio(blas)} |")
    if len(lines) == 2:
        return "No autoscheduled records in this run.\n"
    return "\n".join(lines) + "\n"


# The benchmark targets (docs/performance.md, "Targets"): (area, what, app,
# backends, sizes (log2), value of a case's variants, the
# value's sense: a bound it must not pass ("<=") or reach ("<"), or a floor it
# must reach (">=") or pass (">"), the bound).
FUSED_OPS = ["embedding_all_to_all", "gemv_all_reduce", "gemm_all_to_all"]
BOTH = ["threads", "mpi"]
TARGETS = [
    ("communication", "unscheduled all_reduce within 1.15x of `MPI_Allreduce` (time ratio)",
     ["collective_all_reduce"], ["mpi"], [20, 22, 24], ("coconet", "/", "baseline"), "<=", 1.15),
    ("communication", "fused Adam under MPI within 1.5x of T_min (T / T_min)",
     ["adam"], ["mpi"], [24], ("coconet", "/", "t_min"), "<=", 1.5),
    ("communication", "fused Adam under MPI at least 2x faster than `MPI_Allreduce` + the update",
     ["adam"], ["mpi"], [24], ("baseline", "/", "coconet"), ">=", 2.0),
    ("communication", "LAMB under MPI at least 1.5x faster than its baseline",
     ["lamb"], ["mpi"], [24], ("baseline", "/", "coconet"), ">=", 1.5),
    ("communication", "fused operators at least as fast as their baselines (baseline / CoCoNet)",
     FUSED_OPS, BOTH, [20, 22], ("baseline", "/", "coconet"), ">=", 0.95),
    ("compute", "MatMuls and expert GEMM within 1.25x of OpenBLAS `sgemm` (Halide / BLAS)",
     ["compute_megatron_mlp", "compute_gemm_all_to_all"], BOTH, [20, 22],
     ("halide", "/", "blas"), "<=", 1.25),
    ("compute", "GEMV within 1.25x of OpenBLAS `sgemv` (Halide / BLAS)",
     ["compute_gemv_all_reduce"], BOTH, [20, 22], ("halide", "/", "blas"), "<=", 1.25),
    ("compute", "Megatron block's CoCoNet schedule faster than the BLAS baseline (BLAS / CoCoNet)",
     ["megatron_mlp"], BOTH, [20, 22], ("blas", "/", "coconet"), ">", 1.0),
    ("compute", "GEMV + all_reduce, GEMM + all_to_all at least as fast as their BLAS baselines",
     ["gemv_all_reduce", "gemm_all_to_all"], BOTH, [20, 22], ("blas", "/", "coconet"), ">=", 0.95),
    ("default schedule", "hand schedules removed: at least 0.8x the hand-scheduled speed "
     "(hand / default)", ["lamb", "megatron_mlp", "pipeline_stage"] + FUSED_OPS, BOTH, [20, 22],
     ("coconet", "/", "default"), ">=", 0.8),
    ("default schedule", "hand schedules removed: at least as fast as the BLAS baseline "
     "(BLAS / default)", ["megatron_mlp", "gemv_all_reduce", "gemm_all_to_all"], BOTH, [20, 22],
     ("blas", "/", "default"), ">=", 1.0),
    ("default schedule", "hand schedules removed: at least as fast as the baseline where there "
     "is no BLAS one (baseline / default)", ["lamb", "embedding_all_to_all"], BOTH, [20, 22],
     ("baseline", "/", "default"), ">=", 1.0),
    ("run-time shapes", "one library for every size within 5% of the fixed-shape one at the same "
     "size (shapes / CoCoNet)", ["adam", "lamb", "megatron_mlp", "pipeline_stage"] + FUSED_OPS,
     BOTH, [22], ("shapes", "/", "coconet"), "<=", 1.05),
]
MEETS = {"<=": lambda v, b: v <= b, "<": lambda v, b: v < b,
         ">=": lambda v, b: v >= b, ">": lambda v, b: v > b}


def target_value(variants, spec):
    num, _, den = spec
    a = variants.get(num)
    if den == "t_min":
        return a["seconds_median"] / a["t_min_seconds"] if a and a["t_min_seconds"] else None
    b = variants.get(den)
    return a["seconds_median"] / b["seconds_median"] if a and b else None


def targets(records):
    """The targets table: per target and case, the values at its sizes (bold
    where met), and the count of cells met. Returns (markdown, met, cells)."""
    by_case = cases(records)
    lines = ["| area | target | case | values | met |", "| --- | --- | --- | --- | --- |"]
    met_all = cells_all = 0
    for area, what, apps, backends, sizes, spec, sense, bound in TARGETS:
        first = True
        for app in apps:
            for backend in backends:
                for ranks in sorted({k[2] for k in by_case if k[:2] == (app, backend)}):
                    by_n = by_case[(app, backend, ranks)]
                    shown, met, count = [], 0, 0
                    for e in sizes:
                        v = target_value(by_n.get(1 << e, {}), spec)
                        if v is None:
                            shown.append(f"2^{e}: –")
                            continue
                        ok = MEETS[sense](v, bound)
                        met, count = met + ok, count + 1
                        shown.append(f"2^{e}: " + (f"**{v:.2f}**" if ok else f"{v:.2f}"))
                    met_all, cells_all = met_all + met, cells_all + count
                    lines.append(f"| {area if first else ''} | {f'{what}: {sense} {bound}' if first else ''} "
                                 f"| {app}, {backend}, R = {ranks} | {', '.join(shown)} "
                                 f"| {met} of {count} |")
                    first = False
    return "\n".join(lines) + "\n", met_all, cells_all


def plot(records, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    by_app = {}
    for key, by_n in cases(records).items():
        by_app.setdefault(key[0], {})[key[1:]] = by_n
    for app, panels in by_app.items():
        keys = sorted(panels)
        fig, axes = plt.subplots(1, len(keys), figsize=(4.2 * len(keys), 3.8), squeeze=False)
        for ax, key in zip(axes[0], keys):
            by_n = panels[key]
            ns = sorted(by_n)
            for variant in VARIANTS:
                pts = [(n, by_n[n][variant]) for n in ns if variant in by_n[n]]
                if pts:
                    x = [n for n, _ in pts]
                    y = [r["seconds_median"] for _, r in pts]
                    lo = [r["seconds_median"] - r["seconds_min"] for _, r in pts]
                    hi = [r["seconds_max"] - r["seconds_median"] for _, r in pts]
                    ax.errorbar(x, y, yerr=[lo, hi], marker="o", ms=3, capsize=2, label=variant)
            bound = [(n, r["t_min_seconds"]) for n in ns for v, r in by_n[n].items()
                     if v == "coconet" and r["t_min_seconds"]]
            if bound:
                ax.plot([n for n, _ in bound], [t for _, t in bound], "k--", label="T_min")
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("n (elements)")
            ax.set_ylabel("seconds per step")
            ax.set_title(f"{app}: {key[0]}, {key[1]} ranks", fontsize=10)
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(out, f"{app}.png"), dpi=110)
        plt.close(fig)


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.machine()


def fill_doc(path, regions):
    """Replaces each generated region of the file at path by its new text."""
    with open(path) as f:
        text = f.read()
    for name, body in regions.items():
        pattern = re.compile(rf"(<!-- bench_report: {name} -->\n).*?(<!-- /bench_report -->)", re.S)
        if not pattern.search(text):
            sys.exit(f"{path}: no region <!-- bench_report: {name} --> ... <!-- /bench_report -->")
        text = pattern.sub(lambda m: m.group(1) + body + "\n" + m.group(2), text)
    with open(path, "w") as f:
        f.write(text)


def main():
    args = sys.argv[1:]
    plots = "--no-plots" not in args
    args = [a for a in args if a != "--no-plots"]
    doc = None
    if "--doc" in args:
        i = args.index("--doc")
        if i + 1 >= len(args):
            sys.exit(__doc__)
        doc = args[i + 1]
        del args[i:i + 2]
    torch_runs = None
    if "--torch" in args:
        i = args.index("--torch")
        if i + 1 >= len(args):
            sys.exit(__doc__)
        with open(args[i + 1]) as f:
            torch_runs = json.load(f)
        del args[i:i + 2]
    if len(args) < 2:
        sys.exit(__doc__)
    out, runs = args[0], args[1:]
    records = load(runs)
    goals, met, cells = targets(records)
    regions = {"targets": f"{met} of {cells} cells met (bold: met).\n\n{goals}",
               "default": default(records),
               "autoscheduled": autoscheduled(records),
               "results": f"Machine: {cpu_model()}, {os.cpu_count()} CPUs, "
                          f"{platform.system()} {platform.uname()[2]}\n\n{table(records)}"}
    if torch_runs is not None:
        regions["torch"] = torch_table(records, torch_runs)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(records, f, indent=1)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(f"## The targets\n\n{regions['targets']}\n")
        f.write(f"## The default schedule\n\n{regions['default']}\n")
        if "torch" in regions:
            f.write(f"## PyTorch on this CPU\n\n{regions['torch']}\n")
        f.write(f"## Autoscheduled\n\n{regions['autoscheduled']}\n")
        f.write(f"## All results (medians, ms per step)\n\n{regions['results']}")
    if doc:
        fill_doc(doc, regions)
    if plots:
        plot(records, out)
    print(f"[bench] {len(records)} records: {out}/results.json, {out}/results.md"
          + (f", plots {out}/<app>.png" if plots else ""))


if __name__ == "__main__":
    main()
