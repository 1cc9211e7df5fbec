"""The programs of apps/bench/user_programs.cpp in PyTorch on this CPU (FP32,
a thread per core), eager and torch.compile'd, the best of 7 calls:

    python3 apps/bench/torch_user_programs.py block [tokens=4096] [width=1024]
    python3 apps/bench/torch_user_programs.py attention [tokens=1024] [heads=16] [head_dim=64]
    python3 apps/bench/torch_user_programs.py mlp [tokens=512] [hidden=1024] [inner=4096]
    python3 apps/bench/torch_user_programs.py sgd [parameters=4194304] [ranks=2]

PyTorch computes each program in one process (all heads, the whole
contraction, one gradient), as a user without model or data parallelism
would. For sgd it also runs the step data-parallel as PyTorch's
DistributedDataParallel does on a CPU: `ranks` processes (the cores shared
among them), the gradients summed in place by torch.distributed's
all_reduce over gloo, then each process's step, compiled.
"""
import os
import socket
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F

# The programs as torch_bench.py writes them for R ranks, here for one.
from torch_bench import user_attention, user_block


def user_mlp(x, w1, b1, w2, b2):
    # UserMlp.h: nn.Linear weights ([out, in]), GELU's tanh form.
    return F.linear(F.gelu(F.linear(x, w1, b1), approximate="tanh"), w2, b2)


def user_sgd(g, w, m):
    # UserSgd.h: the gradient's global norm (in double) clipped to 1, SGD with
    # momentum and weight decay, in place as torch.optim.SGD updates.
    norm = torch.linalg.vector_norm(g, dtype=torch.float64)
    scale = torch.clamp(1.0 / norm, max=1.0).float()
    m.mul_(0.9).add_(g * scale)
    w.sub_(0.01 * (m + 1e-4 * w))


def distributed_sgd(rank, ranks, n, port, results):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    torch.set_num_threads(max(1, os.cpu_count() // ranks))
    dist.init_process_group("gloo", rank=rank, world_size=ranks)
    torch.manual_seed(rank)
    g, w, m = torch.randn(n), torch.randn(n), torch.randn(n)
    step = torch.compile(user_sgd)

    def call():
        dist.all_reduce(g)  # in place, as DDP sums its gradient buckets
        step(g, w, m)

    for _ in range(3):
        call()
    times = []
    for _ in range(7):
        dist.barrier()
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    # A call ends when its slowest rank does.
    slowest = torch.tensor([min(times)], dtype=torch.float64)
    dist.all_reduce(slowest, op=dist.ReduceOp.MAX)
    if rank == 0:
        results.put(slowest.item())
    dist.destroy_process_group()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def best_seconds(fn, args, reps=7):
    for _ in range(3):
        fn(*args)
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return min(times)


def numbers(defaults):
    try:
        values = [int(a) for a in sys.argv[2:]]
    except ValueError:
        sys.exit(__doc__)
    if len(values) > len(defaults) or any(v < 1 for v in values):
        sys.exit(__doc__)
    return values + defaults[len(values):]


def main():
    which = sys.argv[1] if len(sys.argv) > 1 else ""
    if which == "block":
        tokens, width = numbers([4096, 1024])
        fn = user_block
        args = (torch.randn(tokens, width), [torch.randn(width, width)], torch.randn(width),
                torch.randn(tokens, width))
        shape = f"{tokens} tokens x {width}"
    elif which == "attention":
        tokens, heads, head_dim = numbers([1024, 16, 64])
        hidden = heads * head_dim
        fn = user_attention
        args = (torch.randn(tokens, hidden), *([torch.randn(hidden, hidden)] for _ in range(4)),
                head_dim)
        shape = f"{tokens} tokens, {heads} heads of {head_dim}"
    elif which == "mlp":
        tokens, hidden, inner = numbers([512, 1024, 4096])
        fn = user_mlp
        args = (torch.randn(tokens, hidden), torch.randn(inner, hidden), torch.randn(inner),
                torch.randn(hidden, inner), torch.randn(hidden))
        shape = f"{tokens} tokens, {hidden} -> {inner} -> {hidden}"
    elif which == "sgd":
        n, ranks = numbers([1 << 22, 2])
        fn = user_sgd
        args = (torch.randn(n), torch.randn(n), torch.randn(n))
        shape = f"{n} parameters"
    else:
        sys.exit(__doc__)
    torch.set_num_threads(os.cpu_count())
    for name, f in (("eager", fn), ("torch.compile", torch.compile(fn))):
        print(f"PyTorch {torch.__version__} {name}, user {which}, {shape}, "
              f"{os.cpu_count()} threads: {best_seconds(f, args):.4f} s per call")
    if which == "sgd":
        results = mp.get_context("spawn").SimpleQueue()
        mp.spawn(distributed_sgd, args=(ranks, n, free_port(), results), nprocs=ranks)
        print(f"PyTorch {torch.__version__} torch.distributed (gloo all_reduce, the step "
              f"torch.compile'd), user sgd, {shape}, {ranks} processes: "
              f"{results.get():.4f} s per call")


if __name__ == "__main__":
    main()
