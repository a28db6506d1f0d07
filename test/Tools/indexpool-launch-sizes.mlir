// Sizes known at launch (format_version 3, docs/manifest.md "Sizes"): one
// manifest runs for every input size. The fake driver
// (test/FakeCuda/FakeCuda.cpp) logs each launch with the grid and integer
// parameters the runtime evaluated, and the stream of each launch, copy,
// memset and synchronization.
//
// The same manifest for two sizes: expand of [B, K] indices, count = B*K
// tokens' rows, grid = ceil(count / 8).
// RUN: env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext INDEXPOOL_FAKE_CUDA_LOG=1 indexpool-launch %S/Inputs/launch/expand-dynamic.json --random-inputs=1 --input-shape=0:3x5 --verify 2>&1 | FileCheck %s --check-prefix=SMALL
// SMALL: fake-cuda: launch indexpool_test_expand grid=[2,1,1] block=[8,1,1] params=[ptr, ptr, 15, 4] stream=default
// SMALL: result #0 (tensor<3x20xi32>): {{.*}} -> ok
// RUN: env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext INDEXPOOL_FAKE_CUDA_LOG=1 indexpool-launch %S/Inputs/launch/expand-dynamic.json --random-inputs=1 --input-shape=0:20x8 --verify 2>&1 | FileCheck %s --check-prefix=LARGE
// LARGE: fake-cuda: launch indexpool_test_expand grid=[20,1,1] block=[8,1,1] params=[ptr, ptr, 160, 4] stream=default
// LARGE: result #0 (tensor<20x32xi32>): {{.*}} -> ok
//
// .npy inputs bind the sizes too.
// RUN: indexpool-run %s --function=make_indices --random-inputs=4 --output=@%t.indices.npy
// RUN: env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext INDEXPOOL_FAKE_CUDA_LOG=1 indexpool-launch %S/Inputs/launch/expand-dynamic.json --input=@%t.indices.npy --verify 2>&1 | FileCheck %s --check-prefix=NPY
// NPY: fake-cuda: launch indexpool_test_expand grid=[3,1,1] block=[8,1,1] params=[ptr, ptr, 24, 4] stream=default
// NPY: result #0 (tensor<4x24xi32>): {{.*}} -> ok
//
// An empty input: the grid is 0, the launch is skipped (CUDA rejects zero
// grids), the empty result still checks.
// RUN: env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext INDEXPOOL_FAKE_CUDA_LOG=1 indexpool-launch %S/Inputs/launch/expand-dynamic.json --random-inputs=1 --input-shape=0:0x8 --verify 2>&1 | FileCheck %s --check-prefix=EMPTY --implicit-check-not=launch
// EMPTY: result #0 (tensor<0x32xi32>): {{.*}} -> ok
//
// sm_count (the fake device has 132 SMs): grid = max(min(ceil(R / 8), SMs),
// ceil(R / 8)); rows and dim are i64 parameters.
// RUN: env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext INDEXPOOL_FAKE_CUDA_LOG=1 indexpool-launch %S/Inputs/launch/dequantize-dynamic.json --random-inputs=2 --input-shape=0:2000x16 --input-shape=1:2000 --verify 2>&1 | FileCheck %s --check-prefix=SMS
// SMS: fake-cuda: launch indexpool_test_dequantize_f8 grid=[250,1,1] block=[8,1,1] params=[ptr, ptr, ptr, 2000, 16] stream=default
// SMS: result #0 (tensor<2000x16xf32>): {{.*}} -> ok
//
// --stream=new: every copy, memset, launch and synchronization on the tool's
// stream, none on the default stream.
// RUN: env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext INDEXPOOL_FAKE_CUDA_LOG=1 indexpool-launch %S/Inputs/launch/expand-dynamic.json --random-inputs=1 --input-shape=0:20x8 --verify --stream=new --benchmark=2 2>&1 | FileCheck %s --check-prefix=STREAM --implicit-check-not=stream=default
// STREAM: fake-cuda: memset 640 bytes stream=1
// STREAM: fake-cuda: memcpy HtoD 640 bytes stream=1
// STREAM: fake-cuda: launch indexpool_test_expand grid=[20,1,1] block=[8,1,1] params=[ptr, ptr, 160, 4] stream=1
// STREAM: fake-cuda: synchronize stream=1
// STREAM: fake-cuda: memcpy DtoH 2560 bytes stream=1
// STREAM: fake-cuda: event record stream=1
// STREAM: fake-cuda: launch indexpool_test_expand grid=[20,1,1] {{.*}} stream=1
// STREAM: result #0 (tensor<20x32xi32>): {{.*}} -> ok
// STREAM: median_ms=
// RUN: env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext indexpool-launch %S/Inputs/launch/fake.json --random-inputs=3 --verify --stream=new | FileCheck %s --check-prefix=V2STREAM
// V2STREAM-COUNT-2: -> ok
//
// Input shapes that do not fit, or that the computes reject, stop before
// any launch with one line.
// RUN: not indexpool-launch %S/Inputs/launch/expand-dynamic.json --random-inputs=1 2>&1 | FileCheck %s --check-prefix=NOSHAPE --implicit-check-not=error:
// NOSHAPE: indexpool-launch: error: input 0 has shape [?, ?]: give --input-shape=0:NxN or --input=@file.npy
// RUN: not indexpool-launch %S/Inputs/launch/expand-dynamic.json --random-inputs=1 --input-shape=0:3x4x5 2>&1 | FileCheck %s --check-prefix=RANK --implicit-check-not=error:
// RANK: indexpool-launch: error: input #0 is [3, 4, 5], but input #0 of {{.*}}expand-dynamic.json has shape [?, ?]
// RUN: not indexpool-launch %S/Inputs/launch/expand-dynamic.json --input-shape=0:3x4 2>&1 | FileCheck %s --check-prefix=ONLYRANDOM --implicit-check-not=error:
// ONLYRANDOM: indexpool-launch: error: --input-shape only applies with --random-inputs
// RUN: not indexpool-launch %S/Inputs/launch/expand-dynamic.json --random-inputs=1 --input-shape=0:3x 2>&1 | FileCheck %s --check-prefix=BADSHAPE --implicit-check-not=error:
// BADSHAPE: indexpool-launch: error: --input-shape=0:3x: '' is not a size
// RUN: not indexpool-launch %S/Inputs/launch/expand-dynamic.json --random-inputs=1 --input-shape=1:3x4 2>&1 | FileCheck %s --check-prefix=NOINPUT --implicit-check-not=error:
// NOINPUT: indexpool-launch: error: --input-shape=1:3x4: input #1 does not exist (the function takes 1 input)
// RUN: not env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext indexpool-launch %S/Inputs/launch/dequantize-dynamic.json --random-inputs=2 --input-shape=0:20x16 --input-shape=1:19 2>&1 | FileCheck %s --check-prefix=RELATION --implicit-check-not=error:
// RELATION: indexpool-launch: error: {{.*}}dequantize-dynamic.json:30:5: computes[0] (dequantize): scale must be [N] = [20], got [19]
// RUN: not indexpool-launch %S/Inputs/launch/expand-dynamic.json --random-inputs=1 --input-shape=0:3000000000x3000000000 2>&1 | FileCheck %s --check-prefix=OVERFLOW --implicit-check-not=error:
// OVERFLOW: indexpool-launch: error: {{.*}}expand-dynamic.json:9:5: sizes[2]: mul overflows: 3000000000 * 3000000000
// RUN: not indexpool-launch %S/Inputs/launch/expand-dynamic.json --random-inputs=1 --input-shape=0:3000000x3000000 2>&1 | FileCheck %s --check-prefix=HUGE --implicit-check-not=error:
// HUGE: indexpool-launch: error: {{.*}}expand-dynamic.json:16:68: buffers[0].shape: more than 2^40 elements
//
// Values checked after binding: the grid's limits (naming the launch), i32
// ranges, negative differences, division by zero.
// RUN: rm -rf %t.dir && mkdir -p %t.dir && cp %S/Inputs/launch/fake.ptx %t.dir/
// RUN: sed 's/"grid": \[{"size": 4}, 1, 1\]/"grid": [1, {"size": 2}, 1]/' %S/Inputs/launch/expand-dynamic.json > %t.dir/grid.json
// RUN: not indexpool-launch %t.dir/grid.json --random-inputs=1 --input-shape=0:700x100 2>&1 | FileCheck %s --check-prefix=GRID --implicit-check-not=error:
// GRID: indexpool-launch: error: {{.*}}grid.json:25:53: launches[0].grid[1]: sizes[2] is 70000, not in [0, 65535]
// RUN: sed 's/{"i32": 4}/{"i32": {"size": 2}}/' %S/Inputs/launch/expand-dynamic.json > %t.dir/i32.json
// RUN: not indexpool-launch %t.dir/i32.json --random-inputs=1 --input-shape=0:70000x70000 2>&1 | FileCheck %s --check-prefix=I32 --implicit-check-not=error:
// I32: indexpool-launch: error: {{.*}}i32.json:26:77: launches[0].params[3].i32: sizes[2] is 4900000000, not in [0, 2147483647]
// RUN: sed 's/"mul", "args": \[{"size": 1}, 4\]/"sub", "args": [{"size": 1}, 4]/' %S/Inputs/launch/expand-dynamic.json > %t.dir/sub.json
// RUN: not indexpool-launch %t.dir/sub.json --random-inputs=1 --input-shape=0:7x3 2>&1 | FileCheck %s --check-prefix=SUB --implicit-check-not=error:
// SUB: indexpool-launch: error: {{.*}}sub.json:10:5: sizes[3]: sub is negative: 3 - 4
// RUN: sed 's/"ceildivu", "args": \[{"size": 2}, 8\]/"divu", "args": [8, {"size": 2}]/' %S/Inputs/launch/expand-dynamic.json > %t.dir/div.json
// RUN: not indexpool-launch %t.dir/div.json --random-inputs=1 --input-shape=0:0x3 2>&1 | FileCheck %s --check-prefix=DIV --implicit-check-not=error:
// DIV: indexpool-launch: error: {{.*}}div.json:11:5: sizes[4]: divu by 0: 8 / 0
//
// Malformed sizes: one line each, naming the entry and the field.
// RUN: sed 's/"op": "ceildivu"/"op": "pow"/' %S/Inputs/launch/expand-dynamic.json > %t.dir/op.json
// RUN: not indexpool-launch %t.dir/op.json 2>&1 | FileCheck %s --check-prefix=OP --implicit-check-not=error:
// OP: indexpool-launch: error: {{.*}}op.json:11:12: sizes[4].op: unknown size op "pow" (expected dim, sm_count, add, sub, mul, divu, ceildivu, remu, minu or maxu)
// RUN: sed 's/"args": \[{"size": 2}, 8\]/"args": [{"size": 4}, 8]/' %S/Inputs/launch/expand-dynamic.json > %t.dir/forward.json
// RUN: not indexpool-launch %t.dir/forward.json 2>&1 | FileCheck %s --check-prefix=FORWARD --implicit-check-not=error:
// FORWARD: indexpool-launch: error: {{.*}}forward.json:11:42: sizes[4].args[0].size: sizes[4] may only use earlier sizes, got 4
// RUN: sed 's/"args": \[{"size": 2}, 8\]/"args": [{"size": 2}, 8, 1]/' %S/Inputs/launch/expand-dynamic.json > %t.dir/arity.json
// RUN: not indexpool-launch %t.dir/arity.json 2>&1 | FileCheck %s --check-prefix=ARITY --implicit-check-not=error:
// ARITY: indexpool-launch: error: {{.*}}arity.json:11:32: sizes[4].args: ceildivu takes 2 operands [A, B], got 3
// RUN: sed 's/"args": \[{"size": 2}, 8\]/"args": [{"size": 2}, -8]/' %S/Inputs/launch/expand-dynamic.json > %t.dir/negative.json
// RUN: not indexpool-launch %t.dir/negative.json 2>&1 | FileCheck %s --check-prefix=NEGATIVE --implicit-check-not=error:
// NEGATIVE: indexpool-launch: error: {{.*}}negative.json:11:46: sizes[4].args[1]: expected an integer in [0, 4611686018427387904], got -8
// RUN: sed 's/{"op": "dim", "buffer": 0, "dim": 1}/{"op": "dim", "buffer": 1, "dim": 1}/' %S/Inputs/launch/expand-dynamic.json > %t.dir/output.json
// RUN: not indexpool-launch %t.dir/output.json 2>&1 | FileCheck %s --check-prefix=NOTINPUT --implicit-check-not=error:
// NOTINPUT: indexpool-launch: error: {{.*}}output.json:8:29: sizes[1].buffer: buffer 1 is an output (dim names a dimension of an input)
// RUN: sed 's/{"op": "dim", "buffer": 0, "dim": 1}/{"op": "dim", "buffer": 0, "dim": 2}/' %S/Inputs/launch/expand-dynamic.json > %t.dir/rank.json
// RUN: not indexpool-launch %t.dir/rank.json 2>&1 | FileCheck %s --check-prefix=DIM --implicit-check-not=error:
// DIM: indexpool-launch: error: {{.*}}rank.json:8:39: sizes[1].dim: input buffer 0 has 2 dimensions
// RUN: sed 's/{"op": "dim", "buffer": 0, "dim": 1}/{"op": "dim", "buffer": 0, "dim": 1, "args": []}/' %S/Inputs/launch/expand-dynamic.json > %t.dir/field.json
// RUN: not indexpool-launch %t.dir/field.json 2>&1 | FileCheck %s --check-prefix=FIELD --implicit-check-not=error:
// FIELD: indexpool-launch: error: {{.*}}field.json:8:50: sizes[1].args: unknown field (expected op, buffer or dim)
// RUN: sed 's/"shape": \[{"size": 0}, {"size": 1}\]/"shape": [{"size": 0}, {"size": 3}]/' %S/Inputs/launch/expand-dynamic.json > %t.dir/own.json
// RUN: not indexpool-launch %t.dir/own.json 2>&1 | FileCheck %s --check-prefix=OWN --implicit-check-not=error:
// OWN: indexpool-launch: error: {{.*}}own.json:16:82: buffers[0].shape[1]: an input's size must be its own dimension: sizes[3] is not {"op": "dim", "buffer": 0, "dim": 1}
// RUN: sed 's/{"i64": {"size": 2}}/{"i64": {"size": 9}}/' %S/Inputs/launch/expand-dynamic.json > %t.dir/nosize.json
// RUN: not indexpool-launch %t.dir/nosize.json 2>&1 | FileCheck %s --check-prefix=NOSIZE --implicit-check-not=error:
// NOSIZE: indexpool-launch: error: {{.*}}nosize.json:26:64: launches[0].params[2].i64.size: no size 9 (the manifest has 7 sizes)
// RUN: sed 's/"format_version": 3/"format_version": 2/' %S/Inputs/launch/expand-dynamic.json > %t.dir/v2.json
// RUN: not indexpool-launch %t.dir/v2.json 2>&1 | FileCheck %s --check-prefix=V2 --implicit-check-not=error:
// V2: indexpool-launch: error: {{.*}}v2.json:6:12: sizes: format_version 2 has no sizes (they are new in format_version 3)

func.func @make_indices(%i: tensor<4x6xi32>) -> tensor<4x6xi32> {
  return %i : tensor<4x6xi32>
}
