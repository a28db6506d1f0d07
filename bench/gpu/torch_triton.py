#!/usr/bin/env python3
"""GPU anchors for the compress benchmark, measured in the same run as the
IndexPool kernels: a device-to-device copy of the same number of bytes,
compress in PyTorch eager, and compress as a Triton kernel written for this
benchmark. Prints one line per measurement and writes JSON to --json.

Same computation as indexpool.compress {rotate, pow2_scale}, P = 4, D = 128:
bf16 keys, per-channel f32 scores + per-slot bias, softmax over the 4 slots,
pooled rounded to bf16, Hadamard (rounded to bf16), FP8 e4m3 with a power-of-
two scale per pooled key; weights [G, 4, 128] f32 are written too.
Usage: torch_triton.py --tokens T [--reps N] [--json FILE]
"""
import argparse
import json
import math

import torch

P, D = 4, 128


def hadamard_matrix(d, device):
    h = torch.ones(1, 1, device=device)
    while h.shape[0] < d:
        h = torch.cat((torch.cat((h, h), 1), torch.cat((h, -h), 1)), 0)
    return h


def compress_torch(keys, scores, bias, h):
    g = keys.shape[0] // P
    x = scores[: g * P].view(g, P, D) + bias
    w = torch.softmax(x, dim=1)
    pooled = (w * keys[: g * P].view(g, P, D).float()).sum(1).to(torch.bfloat16)
    rotated = ((pooled.float() @ h) / math.sqrt(D)).to(torch.bfloat16).float()
    absmax = rotated.abs().amax(1).clamp_min(1e-4)
    scale = torch.exp2(torch.ceil(torch.log2(absmax / 448.0)))
    codes = (rotated / scale[:, None]).clamp(-448, 448).to(torch.float8_e4m3fn)
    return codes, scale, w


def timed(fn, reps):
    fn()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(reps):
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return sorted(times)[len(times) // 2]


def triton_compress():
    import triton
    import triton.language as tl

    @triton.jit
    def kernel(keys, scores, bias, h, codes, scales, weights, G,
               BLOCK: tl.constexpr, DIM: tl.constexpr, SLOTS: tl.constexpr):
        pid = tl.program_id(0)
        rows = pid * BLOCK + tl.arange(0, BLOCK)
        cols = tl.arange(0, DIM)
        ok = rows[:, None] < G
        m = tl.full((BLOCK, DIM), float("-inf"), tl.float32)
        for s in tl.static_range(SLOTS):
            x = tl.load(scores + ((rows * SLOTS + s) * DIM)[:, None] + cols[None, :], mask=ok)
            x += tl.load(bias + s * DIM + cols)[None, :]
            m = tl.maximum(m, x)
        z = tl.zeros((BLOCK, DIM), tl.float32)
        for s in tl.static_range(SLOTS):
            x = tl.load(scores + ((rows * SLOTS + s) * DIM)[:, None] + cols[None, :], mask=ok)
            x += tl.load(bias + s * DIM + cols)[None, :]
            z += tl.exp(x - m)
        acc = tl.zeros((BLOCK, DIM), tl.float32)
        for s in tl.static_range(SLOTS):
            off = ((rows * SLOTS + s) * DIM)[:, None] + cols[None, :]
            x = tl.load(scores + off, mask=ok) + tl.load(bias + s * DIM + cols)[None, :]
            w = tl.exp(x - m) / z
            tl.store(weights + off, w, mask=ok)
            acc += w * tl.load(keys + off, mask=ok).to(tl.float32)
        pooled = acc.to(tl.bfloat16)
        hm = tl.load(h + cols[:, None] * DIM + cols[None, :])
        rotated = (tl.dot(pooled, hm) * (1.0 / 11.313708498984761)).to(tl.bfloat16).to(tl.float32)
        absmax = tl.maximum(tl.max(tl.abs(rotated), axis=1), 1e-4)
        scale = tl.exp2(tl.ceil(tl.log2(absmax / 448.0)))
        q = tl.clamp(rotated / scale[:, None], -448.0, 448.0).to(tl.float8e4nv)
        tl.store(codes + rows[:, None] * DIM + cols[None, :], q, mask=ok)
        tl.store(scales + rows, scale, mask=rows < G)

    def run(keys, scores, bias, h, codes, scale, w):
        g = codes.shape[0]
        block = 16
        kernel[(triton.cdiv(g, block),)](keys, scores, bias, h, codes, scale, w, g,
                                         BLOCK=block, DIM=D, SLOTS=P)
    return run


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=1 << 20)
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--json")
    args = parser.parse_args()
    dev = "cuda"
    t, g = args.tokens, args.tokens // P
    keys = torch.randn(t, D, device=dev).to(torch.bfloat16)
    scores = torch.randn(t, D, device=dev)
    bias = torch.randn(P, D, device=dev)
    h = hadamard_matrix(D, dev)
    nbytes = (t * D * 2 + t * D * 4 + P * D * 4) + (g * D + g * 4 + g * P * D * 4)
    results = {"tokens": t, "bytes": nbytes}

    src = torch.empty(nbytes, dtype=torch.uint8, device=dev)
    dst = torch.empty_like(src)
    results["copy_ms"] = timed(lambda: dst.copy_(src), args.reps)
    results["torch_ms"] = timed(lambda: compress_torch(keys, scores, bias, h), args.reps)
    try:
        run = triton_compress()
        codes = torch.empty(g, D, dtype=torch.float8_e4m3fn, device=dev)
        scale = torch.empty(g, device=dev)
        w = torch.empty(g, P, D, device=dev)
        hb = h.to(torch.bfloat16)
        results["triton_ms"] = timed(lambda: run(keys, scores, bias, hb, codes, scale, w),
                                     args.reps)
        ref_codes, ref_scale, _ = compress_torch(keys, scores, bias, h)
        results["triton_scale_mismatch"] = int((scale != ref_scale).sum())
        results["triton_codes_differing"] = int((codes.float() != ref_codes.float()).sum())
    except Exception as e:  # Triton missing or failing: say so, keep the rest
        results["triton_error"] = str(e)
    for k, v in results.items():
        print(f"{k} {v}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
