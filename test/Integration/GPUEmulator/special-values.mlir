// The special-value tests of ../CPU/special-values-*.mlir on the GPU
// kernels, emulated on CPU threads: sm_90 quantizes to FP8 with the
// emulated cvt.rn.satfinite.e4m3x2.f32, sm_80 with the integer encoder.
// The same inputs and the same hand-worked values as on the CPU.
// RUN: rm -rf %t && /usr/bin/python3 %S/../Inputs/special_values.py %t
// RUN: indexpool-run %S/../CPU/special-values-pool.mlir --function=large_channel --input=@%t/large.keys.npy --input=@%t/large.scores.npy --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=TWO
// RUN: indexpool-run %S/../CPU/special-values-pool.mlir --function=large_token --input=@%t/large.keys.npy --input=@%t/large.tscores.npy --device=gpu-emulator --chip=sm_80 --verify | FileCheck %s --check-prefix=TWO
// RUN: indexpool-run %S/../CPU/special-values-pool.mlir --function=tiny --input=@%t/tiny.keys.npy --input=@%t/tiny.scores.npy --device=gpu-emulator --chip=sm_90 --verify --output=@%t/tiny.pooled.npy --output=@%t/tiny.weights.npy | FileCheck %s --check-prefix=TWO
// RUN: /usr/bin/python3 %S/../Inputs/print_npy.py %t/tiny.pooled.npy pooled 0,3 4 | FileCheck %S/../CPU/special-values-pool.mlir --check-prefix=TINY
// RUN: /usr/bin/python3 %S/../Inputs/print_npy.py %t/tiny.weights.npy w 0,1,3 | FileCheck %S/../CPU/special-values-pool.mlir --check-prefix=TINYW
// RUN: indexpool-run %S/../CPU/special-values-pool.mlir --function=nonfinite --input=@%t/nan.keys.npy --input=@%t/nan.scores.npy --device=gpu-emulator --chip=sm_90 --verify --output=@%t/nan.pooled.npy --output=@%t/nan.weights.npy | FileCheck %s --check-prefix=TWO
// RUN: /usr/bin/python3 %S/../Inputs/print_npy.py %t/nan.pooled.npy pooled 0,1,2,3 10 | FileCheck %S/../CPU/special-values-pool.mlir --check-prefix=NAN
// RUN: indexpool-run %S/../CPU/special-values-pool.mlir --function=compress_f8 --input=@%t/compress.keys.npy --input=@%t/compress.scores.npy --device=gpu-emulator --chip=sm_90 --verify --output=@%t/c8.q.npy --output=@%t/c8.s.npy --output=@%t/c8.w.npy | FileCheck %s --check-prefix=THREE
// RUN: /usr/bin/python3 %S/../Inputs/print_npy.py %t/c8.q.npy q 1,2,3,5 4 | FileCheck %S/../CPU/special-values-pool.mlir --check-prefix=C8
// RUN: /usr/bin/python3 %S/../Inputs/print_npy.py %t/c8.s.npy s 0,1,2,3,4,5 | FileCheck %S/../CPU/special-values-pool.mlir --check-prefix=C8S
// RUN: indexpool-run %S/../CPU/special-values-pool.mlir --function=compress_f8 --input=@%t/compress.keys.npy --input=@%t/compress.scores.npy --device=gpu-emulator --chip=sm_80 --verify --output=@%t/c8b.q.npy --output=@%t/c8b.s.npy --output=@%t/c8b.w.npy | FileCheck %s --check-prefix=THREE
// RUN: /usr/bin/python3 %S/../Inputs/print_npy.py %t/c8b.q.npy q 1,2,3,5 4 | FileCheck %S/../CPU/special-values-pool.mlir --check-prefix=C8
// RUN: indexpool-run %S/../CPU/special-values-pool.mlir --function=compress_i8 --input=@%t/compress.keys.npy --input=@%t/compress.scores.npy --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %S/../CPU/special-values-quantize.mlir --function=f8_pow2 --input=@%t/quantize.x.npy --device=gpu-emulator --chip=sm_90 --verify --output=@%t/f8p.q.npy --output=@%t/f8p.s.npy | FileCheck %s --check-prefix=TWO
// RUN: /usr/bin/python3 %S/../Inputs/print_npy.py %t/f8p.q.npy q 1,2,3,6 14 | FileCheck %S/../CPU/special-values-quantize.mlir --check-prefix=F8
// RUN: /usr/bin/python3 %S/../Inputs/print_npy.py %t/f8p.s.npy s 1,2,3,5,6 | FileCheck %S/../CPU/special-values-quantize.mlir --check-prefix=F8S
// RUN: indexpool-run %S/../CPU/special-values-quantize.mlir --function=f8_plain --input=@%t/quantize.x.npy --device=gpu-emulator --chip=sm_80 --verify --output=@%t/f8.q.npy --output=@%t/f8.s.npy | FileCheck %s --check-prefix=TWO
// RUN: /usr/bin/python3 %S/../Inputs/print_npy.py %t/f8.q.npy q 1,2,3,6 14 | FileCheck %S/../CPU/special-values-quantize.mlir --check-prefix=F8
// RUN: indexpool-run %S/../CPU/special-values-quantize.mlir --function=i8_pow2 --input=@%t/quantize.x.npy --device=gpu-emulator --chip=sm_80 --verify --output=@%t/i8p.q.npy --output=@%t/i8p.s.npy | FileCheck %s --check-prefix=TWO
// RUN: /usr/bin/python3 %S/../Inputs/print_npy.py %t/i8p.q.npy q 1,2,3,7 10 | FileCheck %S/../CPU/special-values-quantize.mlir --check-prefix=I8
// RUN: indexpool-run %S/../CPU/special-values-quantize.mlir --function=dequant_bf16 --input=@%t/dequant.codes.npy --input=@%t/dequant.scales.npy --device=gpu-emulator --chip=sm_90 --verify --output=@%t/dq.bf16.npy | FileCheck %s --check-prefix=ONE
// RUN: /usr/bin/python3 %S/../Inputs/print_npy.py %t/dq.bf16.npy x 0,1,2,3,8 2 | FileCheck %S/../CPU/special-values-quantize.mlir --check-prefix=BF16
// RUN: indexpool-run %S/../CPU/special-values-quantize.mlir --function=dequant_f16 --input=@%t/dequant.codes.npy --input=@%t/dequant.scales.npy --device=gpu-emulator --chip=sm_80 --verify --output=@%t/dq.f16.npy | FileCheck %s --check-prefix=ONE
// RUN: /usr/bin/python3 %S/../Inputs/print_npy.py %t/dq.f16.npy x 4,5,6,7,8 2 | FileCheck %S/../CPU/special-values-quantize.mlir --check-prefix=F16
// RUN: indexpool-run %S/../CPU/special-values-score.mlir --function=hadamard_f32 --input=@%t/hadamard.x.npy --device=gpu-emulator --chip=sm_90 --verify --output=@%t/h.npy | FileCheck %s --check-prefix=ONE
// RUN: /usr/bin/python3 %S/../Inputs/print_npy.py %t/h.npy y 0 4 | FileCheck %S/../CPU/special-values-score.mlir --check-prefix=HAD
// RUN: indexpool-run %S/../CPU/special-values-score.mlir --function=hadamard_bf16 --input=@%t/hadamard.x.npy --device=gpu-emulator --chip=sm_80 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/special-values-score.mlir --function=score_f32 --input=@%t/score.q.npy --input=@%t/score.w.npy --input=@%t/score.keys.npy --input=@%t/score.scales.npy --device=gpu-emulator --chip=sm_90 --verify --output=@%t/l.npy | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/special-values-score.mlir --function=score_fused --input=@%t/fused.q.npy --input=@%t/fused.w.npy --input=@%t/fused.keys.npy --device=gpu-emulator --chip=sm_80 --verify | FileCheck %s --check-prefix=ONE
// RUN: /usr/bin/python3 %S/../Inputs/print_npy.py %t/l.npy logits 0 7 | FileCheck %S/../CPU/special-values-score.mlir --check-prefix=SCORE
// Every e4m3 code decoded for the tensor cores: cvt.rn.f16x2.e4m3x2 on
// sm_89 / sm_90, the software decoder on sm_80; in both halves of a pair
// and in the first and last lane's words (channels 0, 1, 29).
// RUN: indexpool-run %S/../CPU/special-values-score.mlir --function=score_fp8_codes --input=@%t/codes.q0.npy --input=@%t/codes.w.npy --input=@%t/codes.keys.npy --input=@%t/codes.scales.npy --device=gpu-emulator --chip=sm_90 --tensor-cores --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/special-values-score.mlir --function=score_fp8_codes --input=@%t/codes.q1.npy --input=@%t/codes.w.npy --input=@%t/codes.keys.npy --input=@%t/codes.scales.npy --device=gpu-emulator --chip=sm_90 --tensor-cores --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/special-values-score.mlir --function=score_fp8_codes --input=@%t/codes.q29.npy --input=@%t/codes.w.npy --input=@%t/codes.keys.npy --input=@%t/codes.scales.npy --device=gpu-emulator --chip=sm_90 --tensor-cores --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/special-values-score.mlir --function=score_fp8_codes --input=@%t/codes.q0.npy --input=@%t/codes.w.npy --input=@%t/codes.keys.npy --input=@%t/codes.scales.npy --device=gpu-emulator --chip=sm_89 --tensor-cores --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/special-values-score.mlir --function=score_fp8_codes --input=@%t/codes.q29.npy --input=@%t/codes.w.npy --input=@%t/codes.keys.npy --input=@%t/codes.scales.npy --device=gpu-emulator --chip=sm_89 --tensor-cores --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/special-values-score.mlir --function=score_fp8_codes --input=@%t/codes.q0.npy --input=@%t/codes.w.npy --input=@%t/codes.keys.npy --input=@%t/codes.scales.npy --device=gpu-emulator --chip=sm_80 --tensor-cores --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/special-values-score.mlir --function=score_fp8_codes --input=@%t/codes.q1.npy --input=@%t/codes.w.npy --input=@%t/codes.keys.npy --input=@%t/codes.scales.npy --device=gpu-emulator --chip=sm_80 --tensor-cores --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/special-values-score.mlir --function=score_fp8_codes --input=@%t/codes.q29.npy --input=@%t/codes.w.npy --input=@%t/codes.keys.npy --input=@%t/codes.scales.npy --device=gpu-emulator --chip=sm_80 --tensor-cores --verify | FileCheck %s --check-prefix=ONE

// ONE: result #0 {{.*}} -> ok
// ONE-NOT: FAILED
// TWO-COUNT-2: -> ok
// TWO-NOT: FAILED
// THREE-COUNT-3: -> ok
// THREE-NOT: FAILED
