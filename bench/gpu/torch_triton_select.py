#!/usr/bin/env python3
"""GPU anchors for the select benchmark, measured in the same run as the
IndexPool kernels: a device-to-device copy of the bytes select must read
(the FP8 keys, their scales, the query and weights), select in PyTorch eager
(keys decoded to bf16 per chunk, a bf16 matmul, ReLU, scale, head weights,
then torch.topk), and a Triton scoring kernel written for this benchmark
(FP8 keys to bf16, tl.dot with the query's heads, the same epilogue) followed
by torch.topk. Prints one line per measurement and writes JSON to --json.

Same computation as indexpool.select {k, pool_size = 4}: logits[m, n] =
sum_h w[m, h] * max(0, s[n] * q[m, h] . keys[n]); the top k pools per query
row (torch.topk: ties may differ from IndexPool's smaller-index rule, so the
anchors are compared on logits, not on indices).
Usage: torch_triton_select.py --pools N --rows M [--k K] [--reps R]
       [--json FILE] [--device cuda|cpu]   (cpu: a small self-check only)
"""
import argparse
import json

import torch

from torch_triton import timed  # the same CUDA-event median

H, D = 64, 128


def logits_torch(q, w, keys, scales, chunk):
    """[M, N] f32 logits, keys decoded chunk by chunk (bounded memory)."""
    m, n = q.shape[0], keys.shape[0]
    out = torch.empty(m, n, device=q.device)
    qf = q.reshape(m * H, D)
    for start in range(0, n, chunk):
        k = keys[start:start + chunk].to(torch.bfloat16)
        if q.device.type == "cpu":  # bf16 matmul is slow or missing on CPU
            s = qf.float() @ k.float().T
        else:
            s = (qf @ k.T).float()
        s = torch.relu(s.view(m, H, -1) * scales[start:start + chunk])
        out[:, start:start + chunk] = torch.einsum("mhn,mh->mn", s, w)
    return out


def select_torch(q, w, keys, scales, k, chunk):
    return torch.topk(logits_torch(q, w, keys, scales, chunk), k, dim=1).indices


def triton_logits():
    import triton
    import triton.language as tl

    @triton.jit
    def kernel(q, w, keys, scales, out, N,
               BLOCK_N: tl.constexpr, HEADS: tl.constexpr, DIM: tl.constexpr):
        pid = tl.program_id(0)
        m = tl.program_id(1)
        rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)
        cols = tl.arange(0, DIM)
        heads = tl.arange(0, HEADS)
        ok = rows < N
        k = tl.load(keys + rows[:, None] * DIM + cols[None, :], mask=ok[:, None],
                    other=0.0).to(tl.bfloat16)
        qm = tl.load(q + (m * HEADS + heads[:, None]) * DIM + cols[None, :])
        s = tl.dot(qm, tl.trans(k))  # [HEADS, BLOCK_N] f32
        sc = tl.load(scales + rows, mask=ok, other=0.0)
        s = tl.maximum(s * sc[None, :], 0.0)
        wm = tl.load(w + m * HEADS + heads)
        tl.store(out + m * N + rows, tl.sum(s * wm[:, None], axis=0), mask=ok)

    def run(q, w, keys, scales, out):
        m, n = out.shape
        kernel[(triton.cdiv(n, 64), m)](q, w, keys, scales, out, n,
                                        BLOCK_N=64, HEADS=H, DIM=D)
    return run


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pools", type=int, default=1 << 18)
    parser.add_argument("--rows", type=int, default=1)
    parser.add_argument("--k", type=int, default=512)
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--chunk", type=int, default=1 << 16)
    parser.add_argument("--json")
    parser.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    args = parser.parse_args()
    dev, n, m = args.device, args.pools, args.rows
    torch.manual_seed(0)
    q = torch.randn(m, H, D, device=dev).to(torch.bfloat16)
    w = torch.rand(m, H, device=dev)
    if hasattr(torch, "float8_e4m3fn"):
        keys = (torch.randn(n, D, device=dev) * 8).to(torch.float8_e4m3fn)
    else:  # an older PyTorch (the CPU self-check): integers FP8 holds exactly
        keys = torch.randint(-8, 9, (n, D), device=dev).to(torch.bfloat16)
    scales = torch.rand(n, device=dev) / 16
    nbytes = n * D + n * 4 + m * H * D * 2 + m * H * 4
    results = {"pools": n, "rows": m, "k": args.k, "bytes": nbytes}
    chunk = max(1, min(args.chunk, (1 << 28) // max(1, m * H * 4)))

    if dev == "cpu":
        # The self-check: the chunked logits against one float64 product.
        ref = torch.relu(torch.einsum("mhd,nd->mhn", q.double(),
                                      keys.double()) * scales.double())
        ref = torch.einsum("mhn,mh->mn", ref, w.double())
        got = logits_torch(q, w, keys, scales, chunk).double()
        err = ((got - ref).abs().max() / ref.abs().max()).item()
        results["cpu_max_relative_error"] = err
        results["ok"] = err < 1e-5
    else:
        src = torch.empty(nbytes, dtype=torch.uint8, device=dev)
        dst = torch.empty_like(src)
        results["copy_ms"] = timed(lambda: dst.copy_(src), args.reps)
        results["torch_ms"] = timed(
            lambda: select_torch(q, w, keys, scales, args.k, chunk), args.reps)
        try:
            run = triton_logits()
            out = torch.empty(m, n, device=dev)
            results["triton_ms"] = timed(
                lambda: (run(q, w, keys, scales, out),
                         torch.topk(out, args.k, dim=1)), args.reps)
            ref = logits_torch(q, w, keys, scales, chunk)
            results["triton_logit_max_relative_error"] = (
                ((out - ref).abs().max() / ref.abs().max()).item())
        except Exception as e:  # Triton missing or failing: say so, keep the rest
            results["triton_error"] = str(e)
    for key, value in results.items():
        print(f"{key} {value}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    return 0 if results.get("ok", True) else 1


if __name__ == "__main__":
    raise SystemExit(main())
