// Every bad input of indexpool-run ends with exactly one line
// "indexpool-run: error: ..." and exit code 1, never a crash. The .npy inputs
// are written by indexpool-run itself from the @make_* identity functions, so
// the test needs no NumPy.
//
// RUN: indexpool-run %s --function=make_f32 --random-inputs=1 --output=@%t.f32.npy
// RUN: indexpool-run %s --function=make_i32 --random-inputs=1 --output=@%t.i32.npy
// RUN: indexpool-run %s --function=make_tokens --random-inputs=1 --output=@%t.keys.npy --output=@%t.scores.npy
// RUN: printf 'not an npy file' > %t.garbage.npy
// RUN: head -c 100 %t.f32.npy > %t.truncated.npy
// RUN: printf 'func.func @f(%%x: tensor<4xf32>' > %t.malformed.mlir

// Missing, malformed and unknown things.
// RUN: sh -c "indexpool-run %t.does-not-exist.mlir --function=f 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=NOFILE --implicit-check-not=error:
// NOFILE: indexpool-run: error: cannot open input file '{{.*}}does-not-exist.mlir': No such file or directory
// NOFILE-NEXT: rc=1
// RUN: sh -c "indexpool-run %t.malformed.mlir --function=f 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=PARSE
// PARSE: malformed.mlir:1:{{[0-9]+}}: error:
// PARSE: indexpool-run: error: cannot parse {{.*}}malformed.mlir
// PARSE-NEXT: rc=1
// RUN: sh -c "indexpool-run %s --function=nope --random-inputs=1 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=NOFUNC --implicit-check-not=error:
// NOFUNC: indexpool-run: error: no function @nope in {{.*}}indexpool-run-errors.mlir
// NOFUNC-NEXT: rc=1
// RUN: not indexpool-run %s --function=declared 2>&1 | FileCheck %s --check-prefix=DECL --implicit-check-not=error:
// DECL: indexpool-run: error: no function @declared in {{.*}}indexpool-run-errors.mlir
// CUDA-NEXT: rc=1
// RUN: not indexpool-run %s --function=make_f32 --random-inputs=1 --device=tpu 2>&1 | FileCheck %s --check-prefix=DEVICE --implicit-check-not=error:
// DEVICE: indexpool-run: error: unknown device 'tpu' (expected --device=cpu, cuda or gpu-emulator)
// RUN: not indexpool-run %s --function=f64_argument --random-inputs=1 2>&1 | FileCheck %s --check-prefix=ARGTYPE --implicit-check-not=error:
// ARGTYPE: indexpool-run: error: argument #0 of @f64_argument has type tensor<4xf64>: indexpool-run takes ranked tensors of f32, f16, bf16, f8E4M3FN, i8, i32 or i64

// Command-line mistakes end the same way.
// RUN: sh -c "indexpool-run %s 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=NOFUNCTION --implicit-check-not=error:
// NOFUNCTION: indexpool-run: error: --function=NAME is required (the func.func to run)
// NOFUNCTION-NEXT: rc=1
// RUN: not indexpool-run %s --function=make_f32 --no-such-option 2>&1 | FileCheck %s --check-prefix=BADOPTION --implicit-check-not=error:
// BADOPTION: indexpool-run: error: unknown option '--no-such-option' (see --help)
// RUN: not indexpool-run %s --function=make_f32 --random-inputs=1 --benchmark=many 2>&1 | FileCheck %s --check-prefix=BADNUMBER --implicit-check-not=error:
// BADNUMBER: indexpool-run: error: --benchmark=many: expected a number of runs
// RUN: not indexpool-run %s --function=make_f32 --random-inputs=-1 2>&1 | FileCheck %s --check-prefix=BADSEED --implicit-check-not=error:
// BADSEED: indexpool-run: error: --random-inputs=-1: expected an unsigned integer seed
// RUN: not indexpool-run %s --function=make_f32 --random-inputs=1 --vector-width=0 2>&1 | FileCheck %s --check-prefix=BADWIDTH --implicit-check-not=error:
// RUN: not indexpool-run %s --function=make_f32 --random-inputs=1 --vector-width=3 --device=gpu-emulator 2>&1 | count 1
// Past 64 lanes LLVM's backend aborts (65536) or takes minutes (2^20).
// RUN: not indexpool-run %s --function=make_f32 --random-inputs=1 --vector-width=65536 2>&1 | FileCheck %s --check-prefix=WIDEWIDTH --implicit-check-not=error:
// RUN: not indexpool-opt %s --indexpool-to-loops=vector-width=128 2>&1 | FileCheck %s --check-prefix=WIDEPASS
// BADWIDTH: indexpool-run: error: --vector-width=0: expected a power of two number of lanes from 1 to 64
// WIDEWIDTH: indexpool-run: error: --vector-width=65536: expected a power of two number of lanes from 1 to 64
// WIDEPASS: indexpool-to-loops: vector width must be a power of two from 1 to 64, got 128

// Inputs: count, file, dtype, shape.
// RUN: sh -c "indexpool-run %s --function=take_two --input=@%t.f32.npy 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=COUNT --implicit-check-not=error:
// COUNT: indexpool-run: error: @take_two takes 2 arguments, got 1 --input (one --input=@FILE.npy per argument, or --random-inputs=SEED)
// COUNT-NEXT: rc=1
// RUN: not indexpool-run %s --function=take_two 2>&1 | FileCheck %s --check-prefix=NOINPUT --implicit-check-not=error:
// NOINPUT: indexpool-run: error: @take_two takes 2 arguments, got 0 --input
// RUN: sh -c "indexpool-run %s --function=make_f32 --input=@%t.missing.npy 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=MISSING --implicit-check-not=error:
// MISSING: indexpool-run: error: input #0: {{.*}}missing.npy: cannot open: No such file or directory
// MISSING-NEXT: rc=1
// RUN: sh -c "indexpool-run %s --function=make_f32 --input=@%t.garbage.npy 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=GARBAGE --implicit-check-not=error:
// GARBAGE: indexpool-run: error: input #0: {{.*}}garbage.npy: not a .npy file (bad magic)
// GARBAGE-NEXT: rc=1
// RUN: not indexpool-run %s --function=make_f32 --input=@%t.truncated.npy 2>&1 | FileCheck %s --check-prefix=TRUNCATED --implicit-check-not=error:
// TRUNCATED: indexpool-run: error: input #0: {{.*}}truncated.npy: truncated
// RUN: sh -c "indexpool-run %s --function=make_f32 --input=@%t.i32.npy 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=DTYPE --implicit-check-not=error:
// DTYPE: indexpool-run: error: input #0 ({{.*}}i32.npy) is an int32 array, but argument #0 of type tensor<4x8xf32> needs a float32 or float16 array
// DTYPE-NEXT: rc=1
// RUN: not indexpool-run %s --function=make_i32 --input=@%t.f32.npy 2>&1 | FileCheck %s --check-prefix=DTYPE-INT --implicit-check-not=error:
// DTYPE-INT: indexpool-run: error: input #0 ({{.*}}f32.npy) is a float32 array, but argument #0 of type tensor<4x8xi32> needs an int32 array
// RUN: sh -c "indexpool-run %s --function=take_two --input=@%t.f32.npy --input=@%t.f32.npy 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=SHAPE --implicit-check-not=error:
// SHAPE: indexpool-run: error: input #1 ({{.*}}f32.npy) is [4, 8], but argument #1 has type tensor<?xf32>
// SHAPE-NEXT: rc=1
// RUN: not indexpool-run %s --function=make_f32 --input=@%t.f32.npy --random-inputs=1 2>&1 | FileCheck %s --check-prefix=BOTH --implicit-check-not=error:
// BOTH: indexpool-run: error: --input and --random-inputs cannot be combined

// --input-shape.
// RUN: not indexpool-run %s --function=take_two --random-inputs=1 --input-shape=1x3 2>&1 | FileCheck %s --check-prefix=SHAPE-SYNTAX --implicit-check-not=error:
// SHAPE-SYNTAX: indexpool-run: error: --input-shape=1x3: expected I:AxBxC (I the argument number, e.g. 0:1024x128)
// RUN: not indexpool-run %s --function=take_two --random-inputs=1 --input-shape=1:3x3 2>&1 | FileCheck %s --check-prefix=SHAPE-FIT --implicit-check-not=error:
// SHAPE-FIT: indexpool-run: error: --input-shape: [3, 3] does not fit argument #1 of type tensor<?xf32>
// RUN: not indexpool-run %s --function=take_two --random-inputs=1 --input-shape=0:5x8 2>&1 | FileCheck %s --check-prefix=SHAPE-STATIC --implicit-check-not=error:
// SHAPE-STATIC: indexpool-run: error: --input-shape: [5, 8] does not fit argument #0 of type tensor<4x8xf32>
// RUN: not indexpool-run %s --function=take_two --random-inputs=1 --input-shape=2:3 2>&1 | FileCheck %s --check-prefix=SHAPE-INDEX --implicit-check-not=error:
// SHAPE-INDEX: indexpool-run: error: --input-shape=2:3: argument #2 does not exist (the function takes 2 arguments)
// RUN: not indexpool-run %s --function=take_two --random-inputs=1 --input-shape=1:-3 2>&1 | FileCheck %s --check-prefix=SHAPE-SIZE --implicit-check-not=error:
// SHAPE-SIZE: indexpool-run: error: --input-shape=1:-3: '-3' is not a size
// RUN: not indexpool-run %s --function=make_f32 --input=@%t.f32.npy --input-shape=0:4x8 2>&1 | FileCheck %s --check-prefix=SHAPE-NORANDOM --implicit-check-not=error:
// SHAPE-NORANDOM: indexpool-run: error: --input-shape only applies with --random-inputs

// Outputs.
// RUN: sh -c "indexpool-run %s --function=make_tokens --random-inputs=1 --output=@%t.one.npy 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=OUTPUTS --implicit-check-not=error:
// OUTPUTS: indexpool-run: error: @make_tokens has 2 results, got 1 --output
// OUTPUTS-NEXT: rc=1
// RUN: not indexpool-run %s --function=make_f32 --random-inputs=1 --output=@%t.no-such-dir/out.npy 2>&1 | FileCheck %s --check-prefix=NOWRITE --implicit-check-not=error:
// NOWRITE: indexpool-run: error: result #0: {{.*}}no-such-dir/out.npy: cannot create: No such file or directory

// Dynamic sizes that break a relation are caught before anything runs, from
// .npy inputs (T = 12 keys, 10 scores) and from --input-shape.
// RUN: sh -c "indexpool-run %s --function=pool_dynamic --input=@%t.keys.npy --input=@%t.scores.npy 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=RELATION --implicit-check-not=error:
// RELATION: indexpool-run: error: indexpool.pool at {{.*}}indexpool-run-errors.mlir:[[@LINE+28]]:17: scores must be [T] = [12] or [T, D] = [12, 4], got [10]
// RELATION-NEXT: rc=1
// RUN: not indexpool-run %s --function=pool_dynamic --random-inputs=3 --input-shape=0:1024x4 --input-shape=1:1000 2>&1 | FileCheck %s --check-prefix=RELATION-SHAPE --implicit-check-not=error:
// RELATION-SHAPE: indexpool-run: error: indexpool.pool at {{.*}}indexpool-run-errors.mlir:[[@LINE+25]]:17: scores must be [T] = [1024] or [T, D] = [1024, 4], got [1000]
// RUN: not indexpool-run %s --function=pool_static_result --random-inputs=3 --input-shape=0:60x4 --input-shape=1:60 2>&1 | FileCheck %s --check-prefix=RESULT-TYPE --implicit-check-not=error:
// RESULT-TYPE: indexpool-run: error: indexpool.pool at {{.*}}indexpool-run-errors.mlir:[[@LINE+30]]:17: result 'pooled' dimension 0 must be G = floor(T / P) = 15, got 16
// RUN: not indexpool-run %s --function=hadamard_dynamic --random-inputs=3 --input-shape=0:2x96 2>&1 | FileCheck %s --check-prefix=HADAMARD --implicit-check-not=error:
// HADAMARD: indexpool-run: error: indexpool.hadamard at {{.*}}indexpool-run-errors.mlir:[[@LINE+34]]:8: the last size D of x must be a power of two, got 96

// An op the reference evaluator does not know cannot be validated or run.
// RUN: not indexpool-run %s --function=unsupported_op --random-inputs=1 2>&1 | FileCheck %s --check-prefix=UNKNOWN-OP --implicit-check-not=error:
// UNKNOWN-OP: indexpool-run: error: math.exp at {{.*}}indexpool-run-errors.mlir:[[@LINE+43]]:8: this op is not supported by the reference evaluator

func.func @make_f32(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  return %x : tensor<4x8xf32>
}

func.func @make_i32(%x: tensor<4x8xi32>) -> tensor<4x8xi32> {
  return %x : tensor<4x8xi32>
}

func.func @make_tokens(%keys: tensor<12x4xf32>, %scores: tensor<10xf32>)
    -> (tensor<12x4xf32>, tensor<10xf32>) {
  return %keys, %scores : tensor<12x4xf32>, tensor<10xf32>
}

func.func @pool_dynamic(%keys: tensor<?x4xf32>, %scores: tensor<?xf32>)
    -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  %pooled, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<?x4xf32>, tensor<?xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>)
  return %pooled, %w : tensor<?x4xf32>, tensor<?x4xf32>
}

func.func @pool_static_result(%keys: tensor<?x4xf32>, %scores: tensor<?xf32>)
    -> tensor<16x4xf32> {
  %pooled, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<?x4xf32>, tensor<?xf32>) -> (tensor<16x4xf32>, tensor<16x4xf32>)
  return %pooled : tensor<16x4xf32>
}

func.func @hadamard_dynamic(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  %y = indexpool.hadamard %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return %y : tensor<2x?xf32>
}

func.func @take_two(%x: tensor<4x8xf32>, %y: tensor<?xf32>) -> tensor<4x8xf32> {
  return %x : tensor<4x8xf32>
}

func.func @f64_argument(%x: tensor<4xf64>) -> tensor<4xf64> {
  return %x : tensor<4xf64>
}

func.func @unsupported_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = math.exp %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

func.func @topk_dynamic(%l: tensor<2x?xf32>) -> tensor<2x4xi32> {
  %v, %i = indexpool.topk %l {k = 4 : i64} : (tensor<2x?xf32>) -> (tensor<2x4xf32>, tensor<2x4xi32>)
  return %i : tensor<2x4xi32>
}

func.func @select_dynamic(%q: tensor<1x1x1xf32>, %w: tensor<1x1xf32>, %k: tensor<?x1xf32>) -> tensor<1x8xi32> {
  %t = indexpool.select %q, %w, %k {k = 2 : i64, pool_size = 4 : i64}
      : (tensor<1x1x1xf32>, tensor<1x1xf32>, tensor<?x1xf32>) -> tensor<1x8xi32>
  return %t : tensor<1x8xi32>
}

func.func private @declared(tensor<4xf32>) -> tensor<4xf32>

// Dynamic sizes obey the verifier's rules, in its words: k <= N always (N is
// the row capacity; shorter rows use valid), and token indices fit i32.
// RUN: sh -c "indexpool-run %s --function=topk_dynamic --random-inputs=3 --input-shape=0:2x3 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=K-ABOVE-N --implicit-check-not=error:
// K-ABOVE-N: indexpool-run: error: indexpool.topk at {{.*}}indexpool-run-errors.mlir:{{[0-9]+}}:12: k must be at most N = 3 (the number of columns), got 4
// K-ABOVE-N-NEXT: rc=1
// RUN: sed -e 's/%%l: tensor<2x?xf32>/%%l: tensor<2x3xf32>/' -e 's/(tensor<2x?xf32>) -> (tensor<2x4xf32>/(tensor<2x3xf32>) -> (tensor<2x4xf32>/' %s > %t.static-topk.mlir
// RUN: not indexpool-opt %t.static-topk.mlir 2>&1 | FileCheck %s --check-prefix=K-ABOVE-N-STATIC
// K-ABOVE-N-STATIC: error: 'indexpool.topk' op k must be at most N = 3 (the number of columns), got 4
// RUN: not indexpool-run %s --function=select_dynamic --random-inputs=3 --input-shape=2:536870913x1 2>&1 | FileCheck %s --check-prefix=TOKENS-I32 --implicit-check-not=error:
// TOKENS-I32: indexpool-run: error: indexpool.select at {{.*}}indexpool-run-errors.mlir:{{[0-9]+}}:8: N * P = 536870913 * 4 = 2147483652 tokens do not fit the i32 token indices (at most 2^31)
