// indexpool-run --device=cuda: without a driver, one line and exit code 1;
// with the fake driver (test/FakeCuda/FakeCuda.cpp), the function is
// compiled for the chip, described by a manifest and handed to the CUDA
// runtime, which loads the PTX and looks up the compiled kernel (the fake
// driver knows only its own test kernels, so the lookup is where it stops).
// UNSUPPORTED: cuda
// RUN: sh -c "indexpool-run %S/../Target/Inputs/kernels.mlir --function=compress --random-inputs=1 --device=cuda 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=NODRIVER
// RUN: env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext sh -c "indexpool-run %S/../Target/Inputs/kernels.mlir --function=compress --random-inputs=1 --device=cuda --chip=sm_90 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=FAKE
// RUN: env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext not indexpool-run %S/../Target/Inputs/kernels.mlir --function=compress --random-inputs=1 --device=cuda --chip=sm_42 2>&1 | FileCheck %s --check-prefix=CHIP
// A dynamic function is compiled for the shapes of its inputs (static
// kernels, bare pointers), so it gets as far as a static one.
// RUN: env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext not indexpool-run %S/Inputs/dynamic-pool.mlir --function=pool --random-inputs=1 --input-shape=0:1000x64 --input-shape=1:1000 --device=cuda --chip=sm_90 2>&1 | FileCheck %s --check-prefix=DYNAMIC

// NODRIVER: indexpool-run: error: no CUDA driver: libcuda.so.1 not found
// NODRIVER-NEXT: rc=1
// FAKE: indexpool-run: error: kernel 'compress_kernel' is not in the binary: cuModuleGetFunction
// FAKE-NEXT: rc=1
// CHIP: indexpool-run: error: unknown chip 'sm_42'; known chips: sm_80
// DYNAMIC: indexpool-run: error: kernel 'pool_kernel' is not in the binary: cuModuleGetFunction
