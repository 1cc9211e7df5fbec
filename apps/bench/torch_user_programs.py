"""The programs of apps/bench/user_programs.cpp in PyTorch on this CPU (FP32,
a thread per core), eager and torch.compile'd, the best of 7 calls:

    python3 apps/bench/torch_user_programs.py block [tokens=4096] [width=1024]
    python3 apps/bench/torch_user_programs.py attention [tokens=1024] [heads=16] [head_dim=64]
    python3 apps/bench/torch_user_programs.py mlp [tokens=512] [hidden=1024] [inner=4096]

PyTorch computes each program in one process (all heads, the whole
contraction), as a user without model parallelism would.
"""
import os
import sys
import time

import torch
import torch.nn.functional as F

# The programs as torch_bench.py writes them for R ranks, here for one.
from torch_bench import user_attention, user_block


def user_mlp(x, w1, b1, w2, b2):
    # UserMlp.h: nn.Linear weights ([out, in]), GELU's tanh form.
    return F.linear(F.gelu(F.linear(x, w1, b1), approximate="tanh"), w2, b2)


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
    else:
        sys.exit(__doc__)
    torch.set_num_threads(os.cpu_count())
    for name, f in (("eager", fn), ("torch.compile", torch.compile(fn))):
        print(f"PyTorch {torch.__version__} {name}, user {which}, {shape}, "
              f"{os.cpu_count()} threads: {best_seconds(f, args):.4f} s per call")


if __name__ == "__main__":
    main()
