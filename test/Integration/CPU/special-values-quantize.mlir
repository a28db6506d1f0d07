// Special values and exact rounding midpoints in quantize and dequantize on
// the CPU against the float64 reference (docs/robustness.md, "Special
// values"). Inputs come from Inputs/special_values.py; the codes of the
// planted rows are worked out by hand below.
// RUN: rm -rf %t && /usr/bin/python3 %S/../Inputs/special_values.py %t
// RUN: indexpool-run %s --function=f8_pow2 --input=@%t/quantize.x.npy --verify --output=@%t/f8p.q.npy --output=@%t/f8p.s.npy | FileCheck %s --check-prefix=TWO
// RUN: /usr/bin/python3 %S/../Inputs/print_npy.py %t/f8p.q.npy q 1,2,3,6 14 | FileCheck %s --check-prefix=F8
// RUN: /usr/bin/python3 %S/../Inputs/print_npy.py %t/f8p.s.npy s 1,2,3,5,6 | FileCheck %s --check-prefix=F8S
// RUN: indexpool-run %s --function=f8_plain --input=@%t/quantize.x.npy --verify --output=@%t/f8.q.npy --output=@%t/f8.s.npy | FileCheck %s --check-prefix=TWO
// RUN: /usr/bin/python3 %S/../Inputs/print_npy.py %t/f8.q.npy q 1,2,3,6 14 | FileCheck %s --check-prefix=F8
// RUN: indexpool-run %s --function=i8_pow2 --input=@%t/quantize.x.npy --verify --output=@%t/i8p.q.npy --output=@%t/i8p.s.npy | FileCheck %s --check-prefix=TWO
// RUN: /usr/bin/python3 %S/../Inputs/print_npy.py %t/i8p.q.npy q 1,2,3,7 10 | FileCheck %s --check-prefix=I8
// RUN: indexpool-run %s --function=i8_plain --input=@%t/quantize.x.npy --verify --output=@%t/i8.q.npy --output=@%t/i8.s.npy | FileCheck %s --check-prefix=TWO
// RUN: /usr/bin/python3 %S/../Inputs/print_npy.py %t/i8.q.npy q 1,2,3,7 10 | FileCheck %s --check-prefix=I8
// RUN: indexpool-run %s --function=dequant_bf16 --input=@%t/dequant.codes.npy --input=@%t/dequant.scales.npy --verify --output=@%t/dq.bf16.npy | FileCheck %s --check-prefix=ONE
// RUN: /usr/bin/python3 %S/../Inputs/print_npy.py %t/dq.bf16.npy x 0,1,2,3,8 2 | FileCheck %s --check-prefix=BF16
// RUN: indexpool-run %s --function=dequant_f16 --input=@%t/dequant.codes.npy --input=@%t/dequant.scales.npy --verify --output=@%t/dq.f16.npy | FileCheck %s --check-prefix=ONE
// RUN: /usr/bin/python3 %S/../Inputs/print_npy.py %t/dq.f16.npy x 4,5,6,7,8 2 | FileCheck %s --check-prefix=F16

// ONE: -> ok
// ONE-NOT: FAILED
// TWO-COUNT-2: -> ok
// TWO-NOT: FAILED

// Rows 1 (a NaN), 2 (+inf) and 3 (-inf) have scale NaN and only NaN codes,
// always the positive 0x7F (printed "nan", never "-nan"); i8 codes 0.
// Row 6 has absmax 448, so scale 1 with and without pow2_scale and the
// codes are the values rounded to nearest even: 448, -448, 17 -> 16,
// 19 -> 20, -17 -> -16, -19 -> -20 (ulp 2), 1.0625 -> 1, 1.1875 -> 1.25
// (ulp 1/8), 3 * 2^-10 -> 2^-8 = 0.00390625, 2^-10 -> 0, 5 * 2^-10 -> 2^-8
// (subnormal quantum 2^-9), 432 -> 448 and -432 -> -448 (416 is odd),
// 0.53125 -> 0.5 (ulp 1/16).
// Row 5 holds only subnormal f32 values: below min_absmax = 448 * 2^-126,
// so its scale is 2^-126 = 1.1754943508222875e-38 with pow2_scale.
// F8: q[1]: nan nan nan nan nan nan nan nan nan nan nan nan nan nan
// F8: q[2]: nan nan nan nan nan nan nan nan nan nan nan nan nan nan
// F8: q[3]: nan nan nan nan nan nan nan nan nan nan nan nan nan nan
// F8: q[6]: 448.0 -448.0 16.0 20.0 -16.0 -20.0 1.0 1.25 0.00390625 0.0 0.00390625 448.0 -448.0 0.5
// F8S: s[1]: {{-?}}nan
// F8S-NEXT: s[2]: {{-?}}nan
// F8S-NEXT: s[3]: {{-?}}nan
// F8S-NEXT: s[5]: 1.1754943508222875e-38
// F8S-NEXT: s[6]: 1.0
func.func @f8_pow2(%x: tensor<8x64xf32>) -> (tensor<8x64xf8E4M3FN>, tensor<8xf32>) {
  %q, %s = indexpool.quantize %x {pow2_scale, min_absmax = 5.26621469e-36 : f32}
      : (tensor<8x64xf32>) -> (tensor<8x64xf8E4M3FN>, tensor<8xf32>)
  return %q, %s : tensor<8x64xf8E4M3FN>, tensor<8xf32>
}

func.func @f8_plain(%x: tensor<8x64xf32>) -> (tensor<8x64xf8E4M3FN>, tensor<8xf32>) {
  %q, %s = indexpool.quantize %x {min_absmax = 5.26621469e-36 : f32}
      : (tensor<8x64xf32>) -> (tensor<8x64xf8E4M3FN>, tensor<8xf32>)
  return %q, %s : tensor<8x64xf8E4M3FN>, tensor<8xf32>
}

// Row 7 has absmax 127, so scale 1: 2.5 -> 2, 3.5 -> 4, -2.5 -> -2,
// -3.5 -> -4, 0.5 -> 0, 1.5 -> 2, 126.5 -> 126, -126.5 -> -126, -0.5 -> 0.
// I8: q[1]: 0 0 0 0 0 0 0 0 0 0
// I8: q[2]: 0 0 0 0 0 0 0 0 0 0
// I8: q[3]: 0 0 0 0 0 0 0 0 0 0
// I8: q[7]: 127 2 4 -2 -4 0 2 126 -126 0
func.func @i8_pow2(%x: tensor<8x64xf32>) -> (tensor<8x64xi8>, tensor<8xf32>) {
  %q, %s = indexpool.quantize %x {pow2_scale, min_absmax = 5.26621469e-36 : f32}
      : (tensor<8x64xf32>) -> (tensor<8x64xi8>, tensor<8xf32>)
  return %q, %s : tensor<8x64xi8>, tensor<8xf32>
}

func.func @i8_plain(%x: tensor<8x64xf32>) -> (tensor<8x64xi8>, tensor<8xf32>) {
  %q, %s = indexpool.quantize %x {min_absmax = 5.26621469e-36 : f32}
      : (tensor<8x64xf32>) -> (tensor<8x64xi8>, tensor<8xf32>)
  return %q, %s : tensor<8x64xi8>, tensor<8xf32>
}

// Codes 1 and -1 times the row scale are the scale rounded. bf16 (ulp
// 2^-7 in [1, 2)): 1 + 2^-8 -> 1 (even), 1 + 3 * 2^-8 -> 1 + 2^-6 =
// 1.015625, 3 * 2^-134 -> 2^-132 = 1.8367099231598242e-40 (1.5 subnormal
// quanta -> 2), (2 - 2^-8) * 2^127 (above bf16's largest (2 - 2^-7) *
// 2^127 by half an ulp, odd) -> inf. Row 8 has scale -NaN: stored as the
// positive canonical NaN.
// BF16: x[0]: 1.0 -1.0
// BF16-NEXT: x[1]: 1.015625 -1.015625
// BF16-NEXT: x[2]: 1.8367099231598242e-40 -1.8367099231598242e-40
// BF16-NEXT: x[3]: inf -inf
// BF16-NEXT: x[8]: nan nan
func.func @dequant_bf16(%q: tensor<9x16xi8>, %s: tensor<9xf32>) -> tensor<9x16xbf16> {
  %x = indexpool.dequantize %q, %s : (tensor<9x16xi8>, tensor<9xf32>) -> tensor<9x16xbf16>
  return %x : tensor<9x16xbf16>
}

// f16 (ulp 2^-10 in [1, 2)): 1 + 2^-11 -> 1, 1 + 3 * 2^-11 -> 1 + 2^-9 =
// 1.001953125, 3 * 2^-25 -> 2^-23 = 1.1920928955078125e-07 (1.5 quanta of
// 2^-24 -> 2), 65520 (half an ulp above 65504, odd) -> inf.
// F16: x[4]: 1.0 -1.0
// F16-NEXT: x[5]: 1.001953125 -1.001953125
// F16-NEXT: x[6]: 1.1920928955078125e-07 -1.1920928955078125e-07
// F16-NEXT: x[7]: inf -inf
// F16-NEXT: x[8]: nan nan
func.func @dequant_f16(%q: tensor<9x16xi8>, %s: tensor<9xf32>) -> tensor<9x16xf16> {
  %x = indexpool.dequantize %q, %s : (tensor<9x16xi8>, tensor<9xf32>) -> tensor<9x16xf16>
  return %x : tensor<9x16xf16>
}
