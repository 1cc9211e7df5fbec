"""PyTorch baselines for coconet_gpu_bench (apps/bench/gpu_bench.cpp): the same
workloads at the same sizes on the same GPU, in FP32 with TF32 off, eager and
torch.compile'd, plus torch.matmul (cuBLAS) alone for the MatMuls. Run on a GPU
machine with PyTorch (not part of CI):

    python3 apps/bench/torch_bench.py --sizes full --ranks 1,2,4 --out torch.json
    python3 scripts/gpu_bench_report.py gpu_bench.json --torch torch.json

With --device cpu (sizes `cpu`: the shapes of coconet_bench, docs/performance.md)
it runs on the CPU with a thread per core, torch.matmul's BLAS as impl "blas";
scripts/bench.sh --torch installs PyTorch into .venv and runs it so, and
scripts/bench_report.py --torch puts it beside the CoCoNet rows.

R ranks are simulated as R tensors on one device, as coconet_gpu_bench's
thread ranks share one GPU: R gradients summed, then one update (what a
data-parallel step computes after its all-reduce); R partial products summed
(model parallel); an all_to_all as the R contiguous copies each rank receives.
Records have coconet_gpu_bench's keys (impl "torch_eager", "torch_compile" or
"cublas"; bytes and flops by its models, so GB/s compare directly), and a
call is timed as there: a host clock around the call and a device
synchronize, the median of --reps after --warmup calls. The cases run in
coconet_gpu_bench's order (run_order), the file is rewritten after each
record, and with --budget-s no case starts after that many seconds (the
ones left are listed).
"""
import argparse
import json
import math
import os
import platform
import time

import torch
import torch._dynamo
import torch.nn.functional as F

LR, BETA1, BETA2, EPS, WEIGHT_DECAY = 1e-3, 0.9, 0.999, 1e-8, 0.01
BC1, BC2 = 1 - BETA1, 1 - BETA2  # bias corrections at step 1, as the apps'


def gemm_config(width, experts, capacity, tiles):
    return dict(width=width, experts=experts, capacity=capacity, tiles=tiles)


# gpu_bench.cpp's sizes_named: the same table.
SIZES = {
    "smoke": dict(
        params=[4096],
        blocks=[(32, 64)],
        attentions=[(8, 7, 24)],
        embeddings=[dict(dim=16, rows=256, tables=7, bag=4, tile=8, tiles=4)],
        gemvs=[dict(tile=16, tiles=4, cols=256)],
        gemms=[gemm_config(16, 7, 8, 4)],
    ),
    # coconet_bench's shapes at 2^20 and 2^22 (apps/bench/CMakeLists.txt).
    "cpu": dict(
        params=[1 << 20, 1 << 22],
        blocks=[(256, (1 << e) // 256, 256) for e in (20, 22)],
        embeddings=[dict(dim=64, rows=4096, tables=8, bag=8, tile=(1 << e) // 4096, tiles=8)
                    for e in (20, 22)],
        gemvs=[dict(tile=(1 << e) // 8192, tiles=8, cols=1024) for e in (20, 22)],
        gemms=[gemm_config(64, 8, (1 << e) // 4096, 8) for e in (20, 22)],
    ),
    "full": dict(
        params=[1 << 22, 1 << 24, 1 << 26],
        blocks=[(1024, 2048), (2048, 4096), (4096, 8192)],
        attentions=[(64, 16, 1024), (64, 16, 4096), (128, 32, 4096)],
        embeddings=[dict(dim=64, rows=4096, tables=8, bag=8, tile=(1 << e) // 4096, tiles=8)
                    for e in (20, 22, 24)],
        gemvs=[dict(tile=(1 << e) // 8192, tiles=8, cols=1024) for e in (20, 22, 24)],
        gemms=[gemm_config(64, 8, (1 << e) // 4096, 8) for e in (20, 22, 24)],
    ),
}


def power_label(n):
    k = round(math.log2(n))
    return f"2^{k}" if 1 << k == n else str(n)


DEVICE = "cuda"  # or "cpu" (--device)


def randn(*shape):
    return torch.randn(*shape, device=DEVICE)


def synchronize():
    if DEVICE == "cuda":
        torch.cuda.synchronize()


def summed(tensors):
    total = tensors[0]
    for t in tensors[1:]:
        total = total + t
    return total


# ---- The workloads: each gives the step's tensors and functions. ----------------
# A case is (workload, size label, n, bytes(R) or None, flops or None, make), where
# make(R) returns {impl: (fn, args)}; fn(*args) is one call.

def adam_step(grads, w, m, v):
    g = summed(grads)
    m.mul_(BETA1).add_(g, alpha=1 - BETA1)
    v.mul_(BETA2).addcmul_(g, g, value=1 - BETA2)
    w.sub_(LR * (m / BC1) / (torch.sqrt(v / BC2) + EPS))


def lamb_step(grads, w, m, v):
    g = summed(grads)
    m.mul_(BETA1).add_(g, alpha=1 - BETA1)
    v.mul_(BETA2).addcmul_(g, g, value=1 - BETA2)
    update = (m / BC1) / (torch.sqrt(v / BC2) + EPS) + WEIGHT_DECAY * w
    wn = torch.linalg.vector_norm(w, dtype=torch.float64)
    un = torch.linalg.vector_norm(update, dtype=torch.float64)
    trust = torch.where((wn > 0) & (un > 0), wn / un, torch.ones_like(wn)).float()
    w.sub_(LR * trust * update)


def sgd_clip_step(grads, w, m):
    g = summed(grads)
    norm = torch.linalg.vector_norm(g, dtype=torch.float64)
    scale = torch.where(norm > 1, 1 / norm, torch.ones_like(norm)).float()
    m.mul_(BETA1).add_(scale * g)
    w.sub_(LR * (m + WEIGHT_DECAY * w))


def global_norm(slices):
    return summed([torch.linalg.vector_norm(s, dtype=torch.float64).square() for s in slices])


def megatron_mlp(x, w1s, w2s, b2):
    partials = [F.gelu(x @ w1, approximate="tanh") @ w2 for w1, w2 in zip(w1s, w2s)]
    return x + F.dropout(summed(partials) + b2, p=0.1, training=True)


def megatron_matmuls(x, w1s, w2s):
    return [torch.matmul(torch.matmul(x, w1), w2) for w1, w2 in zip(w1s, w2s)]


def pipeline(x, w0s, w1s):
    # Each stage's ranks hold slices of the contraction (W's rows).
    a0 = torch.relu(summed([xk @ w for xk, w in zip(x.chunk(len(w0s), dim=1), w0s)]))
    s1 = summed([ak @ w for ak, w in zip(a0.chunk(len(w1s), dim=1), w1s)])
    return torch.relu(s1) + a0


def pipeline_matmuls(x, w0s, w1s):
    return [torch.matmul(xk, w) for xk, w in zip(x.chunk(len(w0s), dim=1), w0s + w1s)]


def user_block(x, ws, bias, residual):
    # UserBlock.h: each rank's slice of the contraction, summed (the
    # reduce_scatter and all_gather), then bias, residual and LayerNorm.
    partials = [xk @ w for xk, w in zip(x.chunk(len(ws), dim=1), ws)]
    return F.layer_norm(summed(partials) + bias + residual, (x.shape[1],), eps=1e-5)


def user_block_matmuls(x, ws):
    return [torch.matmul(xk, w) for xk, w in zip(x.chunk(len(ws), dim=1), ws)]


def user_attention(x, wqs, wks, wvs, wos, head_dim):
    # UserAttention.h: each rank's heads (rows of nn.Linear weights, [out, in])
    # through scaled_dot_product_attention, its share of the output projection
    # (columns of that weight), the shares summed (the all_reduce).
    tokens = x.shape[0]

    def heads(w):
        return (x @ w.T).view(tokens, -1, head_dim).transpose(0, 1)

    partials = []
    for wq, wk, wv, wo in zip(wqs, wks, wvs, wos):
        attended = F.scaled_dot_product_attention(heads(wq), heads(wk), heads(wv))
        partials.append(attended.transpose(0, 1).reshape(tokens, -1) @ wo.T)
    return summed(partials)


def user_attention_matmuls(x, wqs, wks, wvs, wos, head_dim):
    # The same MatMuls through torch.matmul, the softmax left out.
    tokens = x.shape[0]
    out = []
    for wq, wk, wv, wo in zip(wqs, wks, wvs, wos):
        q, k, v = (torch.matmul(x, w.T).view(tokens, -1, head_dim).transpose(0, 1)
                   for w in (wq, wk, wv))
        attended = torch.matmul(torch.matmul(q, k.transpose(1, 2)), v)
        out.append(torch.matmul(attended.transpose(0, 1).reshape(tokens, -1), wo.T))
    return out


def all_to_all(t, ranks, dim):
    # Rank q receives block q of `dim` (blocks of ceil(extent / R), as CoCoNet slices).
    return [part.contiguous() for part in t.chunk(ranks, dim=dim)]


def embedding_all_to_all(flat_tables, rows_per_sample, shape, ranks):
    tiles, tables, tile, dim = shape
    pooled = F.embedding_bag(rows_per_sample, flat_tables, mode="sum")
    return all_to_all(pooled.view(tiles, tables, tile, dim), ranks, 2)


def gemv_all_reduce(w, x, bias, ranks):
    return summed([xk @ wk for xk, wk in zip(x.chunk(ranks), w.chunk(ranks))]) + bias


def gemv_matmuls(w, x, ranks):
    return [torch.matmul(xk, wk) for xk, wk in zip(x.chunk(ranks), w.chunk(ranks))]


def gemm_all_to_all(tokens, w, ranks):
    return all_to_all(torch.matmul(tokens, w.unsqueeze(1)), ranks, 2)


def cases(sizes):
    out = []
    for n in sizes["params"]:
        label = power_label(n)

        def optimizer(step, moments, n=n):
            # (gradients, w, m) and Adam's v >= 0, as optimizer_inputs makes them.
            def make(ranks):
                state = [randn(n), randn(n)]
                if moments == 2:
                    state.append(randn(n).abs_())
                return {"eager": (step, ([randn(n) for _ in range(ranks)], *state))}
            return make

        out.append(("adam", label, n, lambda r, n=n: n * (8 * r + 20), None,
                    optimizer(adam_step, 2)))
        out.append(("lamb", label, n, lambda r, n=n: n * (8 * r + 32), None,
                    optimizer(lamb_step, 2)))
        out.append(("sgd_clip", label, n, lambda r, n=n: n * (8 * r + 20), None,
                    optimizer(sgd_clip_step, 1)))
        out.append(("global_norm", label, n, lambda r, n=n: 4 * n, None,
                    lambda ranks, n=n: {"eager": (global_norm, (randn(n).chunk(ranks),))}))
    for block in sizes["blocks"]:
        # (hidden, tokens[, ffn]): the FFN 4 x hidden unless given.
        hidden, tokens = block[:2]
        ffn = block[2] if len(block) > 2 else 4 * hidden
        n = hidden * tokens
        label = power_label(n) if DEVICE == "cpu" else f"{hidden}x{tokens}"

        def mlp(ranks, hidden=hidden, tokens=tokens, ffn=ffn):
            x = randn(tokens, hidden)
            w1s = list(randn(hidden, ffn).chunk(ranks, dim=1))
            w2s = list(randn(ffn, hidden).chunk(ranks, dim=0))
            w1s, w2s = [w.contiguous() for w in w1s], [w.contiguous() for w in w2s]
            return {"eager": (megatron_mlp, (x, w1s, w2s, randn(hidden))),
                    "cublas": (megatron_matmuls, (x, w1s, w2s))}

        def pipe(ranks, hidden=hidden, tokens=tokens):
            per_stage = max(1, ranks // 2)
            w0s = [w.contiguous() for w in randn(hidden, hidden).chunk(per_stage, dim=0)]
            w1s = [w.contiguous() for w in randn(hidden, hidden).chunk(per_stage, dim=0)]
            x = randn(tokens, hidden)
            return {"eager": (pipeline, (x, w0s, w1s)),
                    "cublas": (pipeline_matmuls, (x, w0s, w1s))}

        def user(ranks, hidden=hidden, tokens=tokens):
            x = randn(tokens, hidden)
            ws = [w.contiguous() for w in randn(hidden, hidden).chunk(ranks, dim=0)]
            return {"eager": (user_block, (x, ws, randn(hidden), randn(tokens, hidden))),
                    "cublas": (user_block_matmuls, (x, ws))}

        out.append(("megatron_mlp", label, n, None, 4 * n * ffn, mlp))
        out.append(("two_stage_pipeline", label, n, None, 4 * n * hidden, pipe))
        out.append(("user_block", label, n, None, 2 * n * hidden, user))
    for head_dim, heads, tokens in sizes.get("attentions", []):
        hidden = head_dim * heads
        n = hidden * tokens

        def attention(ranks, head_dim=head_dim, heads=heads, tokens=tokens, hidden=hidden):
            # Each rank's heads: blocks of ceil(heads / R), as CoCoNet slices them.
            block = -(-heads // ranks) * head_dim
            rows = [list(randn(hidden, hidden).split(block, dim=0)) for _ in range(3)]
            wos = list(randn(hidden, hidden).split(block, dim=1))
            args = (randn(tokens, hidden), *rows, [w.contiguous() for w in wos], head_dim)
            return {"eager": (user_attention, args), "cublas": (user_attention_matmuls, args)}

        out.append(("user_attention", f"{heads}x{head_dim}x{tokens}", n, None,
                    2 * (4 * n * hidden + 2 * n * tokens), attention))
    for c in sizes["embeddings"]:
        n = c["dim"] * c["tile"] * c["tables"] * c["tiles"]

        def emb(ranks, c=c):
            shape = (c["tiles"], c["tables"], c["tile"], c["dim"])
            flat = randn(c["tables"] * c["rows"], c["dim"])
            indices = torch.randint(0, 1 << 20, (c["tiles"], c["tables"], c["tile"], c["bag"]),
                                    device=DEVICE)
            offsets = (torch.arange(c["tables"], device=DEVICE) * c["rows"]).view(1, -1, 1, 1)
            rows = (indices % c["rows"] + offsets).view(-1, c["bag"])
            return {"eager": (embedding_all_to_all, (flat, rows, shape, ranks))}

        def bytes_model(r, n=n, c=c):
            return 4 * n * (c["bag"] + 1) + 4 * c["bag"] * n / c["dim"]

        out.append(("embedding_all_to_all", power_label(n), n, bytes_model, None, emb))
    for c in sizes["gemvs"]:
        rows = c["tile"] * c["tiles"]
        n = rows * c["cols"]

        def gemv(ranks, rows=rows, c=c):
            w, x = randn(c["cols"], rows), randn(c["cols"])
            return {"eager": (gemv_all_reduce, (w, x, randn(rows), ranks)),
                    "cublas": (gemv_matmuls, (w, x, ranks))}

        def bytes_model(r, n=n, rows=rows, c=c):
            return 4 * n + 4 * c["cols"] + 4 * rows * (3 * r + 1)

        out.append(("gemv_all_reduce", power_label(n), n, bytes_model, 2 * n, gemv))
    for c in sizes["gemms"]:
        n = c["width"] * c["capacity"] * c["experts"] * c["tiles"]

        def gemm(ranks, c=c):
            tokens = randn(c["experts"], c["tiles"], c["capacity"], c["width"])
            w = randn(c["experts"], c["width"], c["width"])
            return {"eager": (gemm_all_to_all, (tokens, w, ranks)),
                    "cublas": (lambda t, w: torch.matmul(t, w.unsqueeze(1)), (tokens, w))}

        out.append(("gemm_all_to_all", power_label(n), n, None, 2 * n * c["width"], gemm))
    return out


def run_order(cases_):
    """The cases as coconet_gpu_bench runs them: every workload at the middle one
    of its sizes, then at the others from the smallest."""
    entries = {}
    for i, case in enumerate(cases_):
        entries.setdefault(case[0], []).append(i)
    order = []
    for indices in entries.values():
        middle = len(indices) // 2
        for k, i in enumerate(indices):
            order.append((0 if k == middle else k + 1 if k < middle else k, i))
    return [cases_[i] for _, i in sorted(order)]


def save(records, path):
    """Writes the records whole, through a file renamed over `path`."""
    with open(path + ".partial", "w") as f:
        json.dump(records, f, indent=1)
    os.replace(path + ".partial", path)


def median_ms(fn, args, reps, warmup):
    for _ in range(warmup):
        fn(*args)
    synchronize()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn(*args)
        synchronize()
        times.append(time.perf_counter() - start)
    times.sort()
    return times[len(times) // 2] * 1e3, times[0] * 1e3, times[-1] * 1e3


def copy_gbps(nbytes):
    a = torch.empty(nbytes // 4, device=DEVICE)
    b = torch.empty_like(a)
    ms, _, _ = median_ms(b.copy_, (a,), 10, 1)
    return 2 * nbytes / ms / 1e6


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", choices=sorted(SIZES), default="full")
    parser.add_argument("--ranks", default="1,2,4")
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--workloads", default="", help="comma-separated; default all")
    parser.add_argument("--out", default="torch_bench.json")
    parser.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    parser.add_argument("--no-compile", action="store_true", help="eager only")
    parser.add_argument("--budget-s", type=float, default=0,
                        help="no case starts after this many seconds (default: no limit)")
    args = parser.parse_args()
    start = time.monotonic()
    global DEVICE
    DEVICE = args.device
    if DEVICE == "cuda" and not torch.cuda.is_available():
        print("[SKIP] no GPU")
        return
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    torch.manual_seed(0)
    if DEVICE == "cuda":
        device = torch.cuda.get_device_name()
    else:
        torch.set_num_threads(os.cpu_count())
        device = f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs"
    copy = copy_gbps((4 if args.sizes == "smoke" else 256) << 20)
    print(f"device: {device}, torch {torch.__version__}; copy bandwidth {copy:.1f} GB/s")
    only = set(filter(None, args.workloads.split(",")))
    records, left_out = [], []
    save(records, args.out)  # no records of an earlier run left behind
    for workload, size, n, bytes_model, flops, make in run_order(cases(SIZES[args.sizes])):
        if only and workload not in only:
            continue
        for ranks in [int(r) for r in args.ranks.split(",")]:
            if workload == "two_stage_pipeline" and ranks < 2:
                continue
            if args.budget_s and time.monotonic() - start > args.budget_s:
                left_out.append(f"{workload} {size} R={ranks}")
                continue
            impls = make(ranks)
            fn, fn_args = impls["eager"]
            if not args.no_compile:
                torch._dynamo.reset()  # a fresh compile per shape, never a fallback to eager
                impls["compile"] = (torch.compile(fn), fn_args)
            for impl, (fn, fn_args) in impls.items():
                ms, ms_min, ms_max = median_ms(fn, fn_args, args.reps, args.warmup)
                nbytes = bytes_model(ranks) if bytes_model else None
                if impl == "cublas":
                    name = "cublas" if DEVICE == "cuda" else "blas"
                else:
                    name = "torch_" + impl
                records.append(dict(
                    workload=workload, schedule=impl, impl=name, size=size, n=n, ranks=ranks,
                    device=device, backend=f"torch {torch.__version__}", ms=ms, ms_min=ms_min,
                    ms_max=ms_max, reps=args.reps, bytes=nbytes,
                    gbps=nbytes / ms / 1e6 if nbytes else None, flops=flops,
                    gflops=flops / ms / 1e6 if flops else None, copy_gbps=copy,
                    host_device_bytes=None, check=None, max_rel_diff=None, tolerance=None,
                    ok=True, tiles=""))
                print(f"{workload:20} {name:13} {size:9} R={ranks}  {ms:9.3f} ms", flush=True)
                save(records, args.out)
            del impls
            if DEVICE == "cuda":
                torch.cuda.empty_cache()
    print(f"wrote {len(records)} records to {args.out} in {time.monotonic() - start:.1f} s")
    if left_out:
        print(f"not run: no case starts after --budget-s {args.budget_s:g} s:")
        for line in left_out:
            print(f"  {line}")


if __name__ == "__main__":
    main()
