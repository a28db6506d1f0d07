// indexpool-launch end to end without a GPU: INDEXPOOL_LIBCUDA_PATH points it
// at the fake driver (test/FakeCuda/FakeCuda.cpp: host memory, host
// kernels, the real driver's error conventions). The launcher, --verify,
// --benchmark, .npy outputs and the driver's errors all take the path they
// take on a GPU.
//
// RUN: env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext indexpool-launch %S/Inputs/launch/fake.json --random-inputs=3 --verify --print-device | FileCheck %s --check-prefix=VERIFY
// VERIFY: device: IndexPool fake GPU (sm_90, 132 SMs, 2048 threads/SM, 228 KiB shared/SM, 50 MiB L2, 80.0 GiB, driver 12.4)
// VERIFY-NEXT: result #0 (tensor<8x16xf32>): max_abs_err=0 max_rel_err=0 normwise_rel_err=0 differing=0/128 (0%) -> ok
// VERIFY-NEXT: result #1 (tensor<2x32xi32>): max_abs_err=0 max_rel_err=0 differing=0/64 (0%) near_tie_swaps=0 -> ok
// VERIFY-EMPTY:
//
// RUN: env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext indexpool-launch %S/Inputs/launch/expand.json --random-inputs=1 --verify --benchmark=5 --copy-anchor | FileCheck %s --check-prefix=BENCH
// BENCH: result #0 (tensor<4x256xi32>): {{.*}} -> ok
// BENCH-NEXT: median_ms={{[0-9]+\.[0-9]+}} effective_GBps={{[0-9]+\.[0-9]+}}
// BENCH-NEXT: copy_median_ms={{[0-9]+\.[0-9]+}} copy_GBps={{[0-9]+\.[0-9]+}} ratio_to_copy={{[0-9]+\.[0-9]+}}
//
// Without --output, --verify or --benchmark: the first values of each result.
// RUN: env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext indexpool-launch %S/Inputs/launch/expand.json --random-inputs=1 | FileCheck %s --check-prefix=SUMMARY
// SUMMARY: result #0 (tensor<4x256xi32>): {{[-0-9.e+]+}}, {{.*}}, ... (1024 values)
// A manifest without computes still launches (it cannot be verified).
// RUN: env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext indexpool-launch %S/Inputs/launch/expand-no-computes.json --random-inputs=1 --benchmark=2 | FileCheck %s --check-prefix=NOCOMPUTES
// NOCOMPUTES: median_ms=
//
// .npy in and out: the outputs of a run, read back as inputs of the next one
// (expand of its own tokens is not what this checks: the inputs are), give the
// same files; the same seed gives the same outputs.
// RUN: indexpool-run %s --function=make_fake_inputs --random-inputs=4 --output=@%t.codes.npy --output=@%t.scales.npy --output=@%t.idx.npy
// RUN: env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext indexpool-launch %S/Inputs/launch/fake.json --input=@%t.codes.npy --input=@%t.scales.npy --input=@%t.idx.npy --verify --output=@%t.deq.npy --output=@%t.tok.npy | FileCheck %s --check-prefix=NPY
// NPY-COUNT-2: -> ok
// RUN: env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext indexpool-launch %S/Inputs/launch/fake.json --input=@%t.codes.npy --input=@%t.scales.npy --input=@%t.idx.npy --output=@%t.deq2.npy --output=@%t.tok2.npy
// RUN: cmp %t.deq.npy %t.deq2.npy
// RUN: cmp %t.tok.npy %t.tok2.npy
// RUN: env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext indexpool-launch %S/Inputs/launch/fake.json --random-inputs=9 --output=@%t.r1.npy --output=@%t.r2.npy
// RUN: env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext indexpool-launch %S/Inputs/launch/fake.json --random-inputs=9 --output=@%t.s1.npy --output=@%t.s2.npy
// RUN: cmp %t.r1.npy %t.s1.npy
//
// A wrong kernel fails --verify: the result line says why, then one error line.
// RUN: rm -rf %t.wrong && mkdir -p %t.wrong && cp %S/Inputs/launch/fake.ptx %t.wrong/
// RUN: sed 's/"indexpool_test_expand"/"indexpool_test_expand_wrong"/' %S/Inputs/launch/fake.json > %t.wrong/m.json
// RUN: sh -c "env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext indexpool-launch %t.wrong/m.json --random-inputs=3 --verify 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=WRONG
// WRONG: result #0 (tensor<8x16xf32>): {{.*}} -> ok
// WRONG-NEXT: result #1 (tensor<2x32xi32>): max_abs_err=1 {{.*}} differing=1/64 (1.562%) near_tie_swaps=0 -> FAILED: element 0 is {{[0-9]+}}, expected {{[0-9]+}}
// WRONG-NEXT: indexpool-launch: error: 1 of 2 results are out of tolerance (--verify)
// WRONG-NEXT: rc=1
//
// Driver errors: one line with the kernel, the call and the driver's words.
// RUN: sed 's/"indexpool_test_expand"/"indexpool_test_fault"/' %S/Inputs/launch/fake.json > %t.wrong/fault.json
// RUN: sh -c "env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext indexpool-launch %t.wrong/fault.json --random-inputs=3 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=FAULT --implicit-check-not=error:
// FAULT: indexpool-launch: error: launches[1] (indexpool_test_fault): cuStreamSynchronize: an illegal memory access was encountered (CUDA_ERROR_ILLEGAL_ADDRESS)
// FAULT-NEXT: rc=1
// RUN: sed 's/"indexpool_test_expand"/"indexpool_test_nope"/' %S/Inputs/launch/fake.json > %t.wrong/nope.json
// RUN: not env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext indexpool-launch %t.wrong/nope.json --random-inputs=3 2>&1 | FileCheck %s --check-prefix=NOKERNEL --implicit-check-not=error:
// NOKERNEL: indexpool-launch: error: kernel 'indexpool_test_nope' is not in the binary: cuModuleGetFunction: named symbol not found (CUDA_ERROR_NOT_FOUND)
//
// Launches that do not match their kernel's signature (manifest "kernels")
// stop before the driver reads the parameters: with too few, the fake
// driver's expand kernel read a fourth parameter that was not there (a
// real driver does the same, and crashed).
// RUN: sed 's/, {"i32": 4}\]/]/' %S/Inputs/launch/fake.json > %t.wrong/fewer.json
// RUN: sh -c "env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext indexpool-launch %t.wrong/fewer.json --random-inputs=3 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=FEWER --implicit-check-not=error:
// FEWER: indexpool-launch: error: {{.*}}fewer.json:19:16: launches[1].params: kernel 'indexpool_test_expand' takes 4 parameters, the launch passes 3
// FEWER-NEXT: rc=1
// RUN: sed 's/{"i32": 4}/{"f32": 4}/' %S/Inputs/launch/fake.json > %t.wrong/kind.json
// RUN: not env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext indexpool-launch %t.wrong/kind.json --random-inputs=3 2>&1 | FileCheck %s --check-prefix=KIND --implicit-check-not=error:
// KIND: indexpool-launch: error: {{.*}}kind.json:19:60: launches[1].params[3]: kernel 'indexpool_test_expand' takes an i32 (4 bytes) as parameter 3, the launch passes a f32 (4 bytes)
// RUN: sed 's/{"buffer": 4}/{"buffer": 5}/' %S/Inputs/launch/fake.json > %t.wrong/small.json
// RUN: not env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext indexpool-launch %t.wrong/small.json --random-inputs=3 2>&1 | FileCheck %s --check-prefix=SMALL --implicit-check-not=error:
// SMALL: indexpool-launch: error: {{.*}}small.json:19:32: launches[1].params[1]: kernel 'indexpool_test_expand' accesses 256 bytes through parameter 1, but buffer 5 (tensor<8xf32>) has 32
// RUN: not env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext INDEXPOOL_FAKE_CUDA_CC=80 indexpool-launch %S/Inputs/launch/compress.json --random-inputs=3 2>&1 | FileCheck %s --check-prefix=NOBIN --implicit-check-not=error:
// NOBIN: indexpool-launch: error: the binary of {{.*}}compress.json
// RUN: sed 's/"sm_80"/"sm_90"/' %S/Inputs/launch/fake.json > %t.wrong/sm90.json
// RUN: not env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext INDEXPOOL_FAKE_CUDA_CC=86 indexpool-launch %t.wrong/sm90.json --random-inputs=3 2>&1 | FileCheck %s --check-prefix=CHIP --implicit-check-not=error:
// CHIP: indexpool-launch: error: the binary is PTX for sm_90, which device 0 (IndexPool fake GPU, sm_86) cannot run: compile it for sm_86 (indexpool-compile --chip=sm_86)
// RUN: sh -c "env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext INDEXPOOL_FAKE_CUDA_DEVICES=0 indexpool-launch %S/Inputs/launch/fake.json --random-inputs=3 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=NODEVICE --implicit-check-not=error:
// NODEVICE: indexpool-launch: error: no CUDA device
// NODEVICE-NEXT: rc=1
// RUN: not env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext indexpool-launch %S/Inputs/launch/fake.json --random-inputs=3 --device=1 2>&1 | FileCheck %s --check-prefix=ORDINAL --implicit-check-not=error:
// ORDINAL: indexpool-launch: error: no CUDA device 1 (this machine has 1)
// RUN: not env INDEXPOOL_LIBCUDA_PATH=%t.no-such-libcuda.so indexpool-launch %S/Inputs/launch/fake.json --random-inputs=3 2>&1 | FileCheck %s --check-prefix=NODRIVER --implicit-check-not=error:
// NODRIVER: indexpool-launch: error: no CUDA driver: {{.*}}no-such-libcuda.so not found

func.func @make_fake_inputs(%codes: tensor<8x16xf32>, %scales: tensor<8xf32>,
                            %idx: tensor<2x8xi32>)
    -> (tensor<8x16xf32>, tensor<8xf32>, tensor<2x8xi32>) {
  return %codes, %scales, %idx : tensor<8x16xf32>, tensor<8xf32>, tensor<2x8xi32>
}
