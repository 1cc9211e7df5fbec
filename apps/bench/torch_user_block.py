"""The block of apps/bench/user_block.cpp in PyTorch on this CPU (FP32, a
thread per core), eager and torch.compile'd, the best of 7 calls:

    python3 apps/bench/torch_user_block.py [tokens=4096] [width=1024]
"""
import os
import sys
import time

import torch
import torch.nn.functional as F


def block(x, w, bias, residual):
    return F.layer_norm(x @ w + bias + residual, (w.shape[1],), eps=1e-5)


def best_seconds(fn, args, reps=7):
    for _ in range(3):
        fn(*args)
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    tokens = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
    width = int(sys.argv[2]) if len(sys.argv) > 2 else 1024
    torch.set_num_threads(os.cpu_count())
    args = (torch.randn(tokens, width), torch.randn(width, width), torch.randn(width),
            torch.randn(tokens, width))
    for name, fn in (("eager", block), ("torch.compile", torch.compile(block))):
        print(f"PyTorch {torch.__version__} {name}, {tokens} tokens x {width}, "
              f"{os.cpu_count()} threads: {best_seconds(fn, args):.4f} s per call")


if __name__ == "__main__":
    main()
