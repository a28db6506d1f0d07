// Outputs written in place of an input (docs/manifest.md, "Buffers":
// `in_place_of`), as the paged ops update a serving engine's page pool. The
// fake driver (test/FakeCuda/FakeCuda.cpp) logs each allocation (#1, #2,
// ... in order) and the allocations each copy and launch touches.
//
// inplace-expand.json: expand [B, K] indices into input 1, [B, 4K] i32,
// which the function returns. Two allocations (the inputs), none for the
// output; the launch writes input 1's memory and the output is read from
// there; --verify compares it with the reference computed from the inputs
// as passed.
// RUN: env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext INDEXPOOL_FAKE_CUDA_LOG=1 indexpool-launch %S/Inputs/launch/inplace-expand.json --random-inputs=1 --input-shape=0:3x5 --input-shape=1:3x20 --verify 2>&1 | FileCheck %s --check-prefix=INPLACE
// INPLACE: fake-cuda: alloc 60 bytes #1
// INPLACE: fake-cuda: alloc 240 bytes #2
// INPLACE-NOT: alloc
// INPLACE: fake-cuda: memcpy HtoD 240 bytes stream=default to=#2
// INPLACE-NOT: alloc
// INPLACE: fake-cuda: launch indexpool_test_expand grid=[2,1,1] block=[8,1,1] params=[ptr, ptr, 15, 4] stream=default memory=[#1, #2]
// INPLACE: fake-cuda: memcpy DtoH 240 bytes stream=default from=#2
// INPLACE: result #0 (tensor<3x20xi32>): {{.*}} -> ok
//
// The same function with an output of its own: one allocation more, which
// the launch writes and the output is read from.
// RUN: rm -rf %t && mkdir -p %t && cp %S/Inputs/launch/fake.ptx %t/
// RUN: sed -e 's/, "in_place_of": 1//' -e 's/{"buffer": 1}, {"i64"/{"buffer": 2}, {"i64"/' %S/Inputs/launch/inplace-expand.json > %t/copy.json
// RUN: env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext INDEXPOOL_FAKE_CUDA_LOG=1 indexpool-launch %t/copy.json --random-inputs=1 --input-shape=0:3x5 --input-shape=1:3x20 --verify 2>&1 | FileCheck %s --check-prefix=COPY
// COPY: fake-cuda: alloc 240 bytes #3
// COPY: fake-cuda: launch indexpool_test_expand {{.*}} memory=[#1, #3]
// COPY: fake-cuda: memcpy DtoH 240 bytes stream=default from=#3
// COPY: result #0 (tensor<3x20xi32>): {{.*}} -> ok
//
// --benchmark runs the launches again on the memory they updated (steps on
// evolving state, as a decode loop does): no upload in between.
// RUN: env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext INDEXPOOL_FAKE_CUDA_LOG=1 indexpool-launch %S/Inputs/launch/inplace-expand.json --random-inputs=1 --input-shape=0:3x5 --input-shape=1:3x20 --benchmark=2 2>&1 | FileCheck %s --check-prefix=BENCH
// BENCH: fake-cuda: memcpy DtoH 240 bytes stream=default from=#2
// BENCH-NOT: memcpy HtoD
// BENCH: fake-cuda: event record
// BENCH-NEXT: fake-cuda: launch indexpool_test_expand {{.*}} memory=[#1, #2]
// BENCH-NOT: memcpy HtoD
// BENCH: median_ms=
//
// Shapes that differ only once bound: one line before the device.
// RUN: not indexpool-launch %S/Inputs/launch/inplace-expand.json --random-inputs=1 --input-shape=0:3x5 --input-shape=1:3x21 2>&1 | FileCheck %s --check-prefix=BOUND --implicit-check-not=error:
// BOUND: indexpool-launch: error: {{.*}}inplace-expand.json:20:112: buffers[2].in_place_of: output buffer 2 is tensor<3x20xi32>, but input buffer 1 is tensor<3x21xi32> (in place needs the same type and shape)
//
// inplace.json: compress_paged's updated pool in place of the pool it is
// given. It loads, draws its inputs, and gets as far as the fake driver
// goes (it has no paged kernels).
// RUN: not env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext indexpool-launch %S/Inputs/launch/inplace.json --random-inputs=1 --verify 2>&1 | FileCheck %s --check-prefix=PAGED --implicit-check-not=error:
// PAGED: indexpool-launch: error: kernel 'compress_into_pages_kernel' is not in the binary
//
// Mistakes: one line each, naming the field.
// RUN: sed 's/"shape": \[16\]}/"shape": [16], "in_place_of": 2}/' %S/Inputs/launch/inplace.json > %t/input.json
// RUN: not indexpool-launch %t/input.json --random-inputs=1 2>&1 | FileCheck %s --check-prefix=NOTOUTPUT --implicit-check-not=error:
// NOTOUTPUT: indexpool-launch: error: {{.*}}input.json:10:89: buffers[3].in_place_of: only an output can be in place of an input, buffer 3 is an input
// RUN: sed 's/"in_place_of": 2/"in_place_of": 4/' %S/Inputs/launch/inplace.json > %t/output.json
// RUN: not indexpool-launch %t/output.json --random-inputs=1 2>&1 | FileCheck %s --check-prefix=NOTINPUT --implicit-check-not=error:
// NOTINPUT: indexpool-launch: error: {{.*}}output.json:11:93: buffers[4].in_place_of: buffer 4 is an output, not an input
// RUN: sed 's/"in_place_of": 2/"in_place_of": 3/' %S/Inputs/launch/inplace.json > %t/shape.json
// RUN: not indexpool-launch %t/shape.json --random-inputs=1 2>&1 | FileCheck %s --check-prefix=SHAPE --implicit-check-not=error:
// SHAPE: indexpool-launch: error: {{.*}}shape.json:11:93: buffers[4].in_place_of: output buffer 4 is tensor<4x160xi8>, but input buffer 3 is tensor<16xi64> (in place needs the same type and shape)
// RUN: sed 's/"in_place_of": 2}/"in_place_of": 2},\n    {"id": 5, "role": "output", "index": 1, "type": "i8", "shape": [4, 160], "in_place_of": 2}/' %S/Inputs/launch/inplace.json > %t/twice.json
// RUN: not indexpool-launch %t/twice.json --random-inputs=1 2>&1 | FileCheck %s --check-prefix=TWICE --implicit-check-not=error:
// TWICE: indexpool-launch: error: {{.*}}twice.json:12:93: buffers[5].in_place_of: input buffer 2 is already updated in place by buffers[4] (one output per input)
// RUN: sed 's/{"buffer": 2}, {"buffer": 3}/{"buffer": 4}, {"buffer": 3}/' %S/Inputs/launch/inplace.json > %t/param.json
// RUN: not indexpool-launch %t/param.json --random-inputs=1 2>&1 | FileCheck %s --check-prefix=PARAM --implicit-check-not=error:
// PARAM: indexpool-launch: error: {{.*}}param.json:21:58: launches[0].params[2].buffer: buffer 4 is in place of input 2 (it has no device memory of its own: name buffer 2)
