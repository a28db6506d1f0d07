// indexpool-tune for a GPU without one: the candidates of a compress and a
// select are compiled for sm_90 here, and indexpool-tune-measure times them
// through the fake driver (test/FakeCuda: real PTX loads, launches are
// no-ops, so its times are not GPU times and every output says so). The
// database holds one entry per op, a candidate's launch, and
// --indexpool-configure attaches exactly that launch.
//
// No driver (an impossible driver path, so that a GPU machine takes this
// path too): the plan is written and the one command to run is printed.
// RUN: rm -rf %t && env INDEXPOOL_LIBCUDA_PATH=%t.no-driver.so indexpool-tune %s --chip=sm_90 -o %t --max-candidates=3 --repeat=2 | FileCheck %s --check-prefix=PLAN
// PLAN: wrote {{.*}}plan.json: 6 candidates of 2 ops
// PLAN-NEXT: estimate (cost model, not a measurement): the candidates' kernels take {{.*}} s of sm_90 time for 3 runs each; loads, uploads and --verify come on top
// PLAN-NEXT: not measured here (no CUDA driver{{.*}}). On the GPU machine, with DIR carried there, run:
// PLAN-NEXT: indexpool-tune-measure {{.*}} --repeat=2
// RUN: test -s %t/candidates/op0-2/cs.sm_90.ptx && test -s %t/candidates/op1-0/cs.sm_90.json
// RUN: FileCheck %s --check-prefix=DB0 < %t/candidates/op1-0/tuning-db.json
// DB0: [{"chip": "sm_90", "op": "select", "shape_class": "M=2, H=4, N=256, D=64, K=16, P=4", "launch": {"threads_per_block": {{[0-9]+}}, "items_per_block": {{[0-9]+}}, "elements_per_thread": {{[0-9]+}}, "vector_bytes": {{4|8|16}}, "grid": "{{tiled|grid_stride}}"}}]
//
// RUN: env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext INDEXPOOL_FAKE_CUDA_ANY_KERNEL=1 indexpool-tune-measure %t --repeat=3 > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=MEASURE < %t.out
// MEASURE: compress (op 0, T=1024, G=256, D=64, P=4): candidate {{[0-2]}}, threads={{[0-9]+}} {{.*}} (fake-driver time, not a GPU time)
// MEASURE-NEXT: select (op 1, M=2, H=4, N=256, D=64, K=16, P=4): candidate {{[0-2]}}, {{.*}} (fake-driver time, not a GPU time)
// RUN: FileCheck %s --check-prefix=PROGRESS < %t.err
// PROGRESS: 6 candidates of @cs on IndexPool fake GPU {{.*}}; times: fake-driver time, not a GPU time
// PROGRESS: [############] 6/6  best {{.*}} ms (candidate {{[0-5]}}, fake-driver time, not a GPU time)
// RUN: FileCheck %s --check-prefix=SOURCE < %t/measurements.json
// SOURCE: "source": "fake-cuda-driver",
//
// RUN: python3 %S/Inputs/check_tune.py %t %t/tuning-db.json --candidates=6 --source=fake-cuda-driver --checks=%t.checks
// RUN: indexpool-opt %s --indexpool-configure="chip=sm_90 tuning-db=%t/tuning-db.json" | FileCheck %t.checks
//
// --verify: the fake driver's no-op kernels compute nothing, so every
// candidate fails against the reference, is reported, and none is chosen.
// RUN: env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext INDEXPOOL_FAKE_CUDA_ANY_KERNEL=1 not indexpool-tune-measure %t --repeat=1 --verify --quiet --db=%t.verify.json 2>&1 | FileCheck %s --check-prefix=VERIFY
// VERIFY: candidate 0 (compress #0, {{.*}}) excluded: output #0 fails --verify
// VERIFY: indexpool-tune-measure: error: every candidate of compress that was measured failed (see {{.*}}measurements.json): no database written
// RUN: not test -e %t.verify.json
// RUN: not ls %t/*.partial
//
// With a driver, indexpool-tune measures in process, and --plot draws the
// search.
// RUN: rm -rf %t.inproc && env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext INDEXPOOL_FAKE_CUDA_ANY_KERNEL=1 indexpool-tune %s --chip=sm_90 -o %t.inproc --max-candidates=2 --repeat=2 --quiet --plot | FileCheck %s --check-prefix=INPROC
// INPROC: wrote {{.*}}plan.json: 4 candidates of 2 ops
// INPROC: select (op 1, {{.*}} (fake-driver time, not a GPU time)
// INPROC: wrote {{.*}}search.png
// RUN: test -s %t.inproc/search.png
// RUN: python3 %S/Inputs/check_tune.py %t.inproc %t.inproc/tuning-db.json --candidates=4 --source=fake-cuda-driver

func.func @cs(%keys: tensor<1024x64xf32>, %scores: tensor<1024x64xf32>,
              %q: tensor<2x4x64xf32>, %w: tensor<2x4xf32>, %k: tensor<256x64xf32>)
    -> (tensor<256x64xf8E4M3FN>, tensor<256xf32>, tensor<256x4x64xf32>, tensor<2x64xi32>) {
  %c, %s, %r = indexpool.compress %keys, %scores {pool_size = 4 : i64, rotate}
      : (tensor<1024x64xf32>, tensor<1024x64xf32>)
        -> (tensor<256x64xf8E4M3FN>, tensor<256xf32>, tensor<256x4x64xf32>)
  %t = indexpool.select %q, %w, %k {k = 16 : i64, pool_size = 4 : i64}
      : (tensor<2x4x64xf32>, tensor<2x4xf32>, tensor<256x64xf32>) -> tensor<2x64xi32>
  return %c, %s, %r, %t : tensor<256x64xf8E4M3FN>, tensor<256xf32>, tensor<256x4x64xf32>, tensor<2x64xi32>
}
