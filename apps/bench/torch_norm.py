"""PyTorch's baseline for coconet_gpu_norm_bench (run on a GPU machine with
PyTorch; not part of CI): the squared norm of n = 2^24 float32 values summed
in float64, the input on the GPU. Prints milliseconds and GB/s over the
input's bytes, timed as the CoCoNet bench times (a host clock around each
call and the scalar's copy to the host; the median of --reps).
"""
import argparse
import statistics
import time

import torch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--log2n", type=int, default=24)
    args = parser.parse_args()
    n = 1 << args.log2n
    x = ((torch.arange(n, device="cuda") % 1013) - 506).float() / 512.0
    norm = lambda: torch.linalg.vector_norm(x, dtype=torch.float64).square().item()
    for _ in range(3):
        norm()
    times = []
    for _ in range(args.reps):
        start = time.perf_counter()
        norm()
        times.append(time.perf_counter() - start)
    t = statistics.median(times)
    print(f"torch.linalg.vector_norm(dtype=float64)^2, n = 2^{args.log2n}: "
          f"{t * 1e3:.3f} ms, {4 * n / t / 1e9:.1f} GB/s")


if __name__ == "__main__":
    main()
