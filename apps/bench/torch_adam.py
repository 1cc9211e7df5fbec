"""PyTorch baselines for the fused Adam step of coconet_gpu_adam_bench (run on
a GPU machine with PyTorch; not part of CI).

The same work on one GPU: the sum of R ranks' gradients of n = 2^24 float32
parameters and an Adam update of the parameters and both moments. Three forms
a PyTorch user has: the fused optimizer (torch.optim.Adam(fused=True)) after
summing the gradients, the same with foreach, and the sum and update as one
torch.compile'd function (Inductor fuses them into one kernel: the strongest
baseline, the same bytes as CoCoNet's fused kernel). Prints milliseconds per
step and GB/s counted as coconet_gpu_adam_bench counts them, n * (4R + 24)
bytes: every gradient read once, w, m and v read and written once.
"""
import argparse

import torch


def time_ms(fn, reps):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / reps


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--log2n", type=int, default=24)
    args = parser.parse_args()
    n, ranks = 1 << args.log2n, args.ranks
    grads = [torch.full((n,), 0.01 * (q + 1), device="cuda") for q in range(ranks)]
    bytes_per_step = n * (4 * ranks + 24)
    lr, beta1, beta2, eps = 1e-3, 0.9, 0.999, 1e-8

    def summed():
        g = grads[0] + grads[1] if ranks > 1 else grads[0].clone()
        for q in range(2, ranks):
            g += grads[q]
        return g

    results = {}
    for name, kwargs in (("torch.optim.Adam(fused=True)", {"fused": True}),
                         ("torch.optim.Adam(foreach=True)", {"foreach": True})):
        w = torch.nn.Parameter(torch.full((n,), 0.5, device="cuda"))
        opt = torch.optim.Adam([w], lr=lr, betas=(beta1, beta2), eps=eps, **kwargs)

        def step():
            w.grad = summed()
            opt.step()

        results[name] = time_ms(step, args.reps)

    w = torch.full((n,), 0.5, device="cuda")
    m = torch.zeros(n, device="cuda")
    v = torch.zeros(n, device="cuda")

    @torch.compile
    def compiled_step(w, m, v, *gs):
        g = gs[0]
        for x in gs[1:]:
            g = g + x
        m.mul_(beta1).add_((1 - beta1) * g)
        v.mul_(beta2).add_((1 - beta2) * g * g)
        w.sub_(lr * (m / (1 - beta1)) / (torch.sqrt(v / (1 - beta2)) + eps))

    results["torch.compile (sum + update, one function)"] = time_ms(
        lambda: compiled_step(w, m, v, *grads), args.reps)

    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    for name, ms in results.items():
        print(f"{name}: n = {n}, {ranks} ranks' gradients: {ms:.3f} ms per step, "
              f"{bytes_per_step / ms / 1e6:.1f} GB/s")


if __name__ == "__main__":
    main()
