// The select benchmark's PyTorch anchor (bench/gpu/torch_triton_select.py)
// computes select's logits: on the CPU it checks its chunked bf16 logits
// against one float64 product (keys FP8 holds exactly), so the anchor a GPU
// run compares IndexPool with is the same computation. No timing here.
// RUN: /usr/bin/python3 %S/../../bench/gpu/torch_triton_select.py --device cpu --pools 3000 --rows 2 --k 16 --chunk 700 | FileCheck %s
// CHECK: rows 2
// CHECK: cpu_max_relative_error
// CHECK: ok True
