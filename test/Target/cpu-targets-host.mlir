// The CPU target rows on this host: each x86 row it runs gives results that
// pass the float64 reference (the numerics of lit-cpu-*, here for one
// select); a row of another architecture, or one needing features the host
// lacks (AMX and AVX512-FP16 on a host without them), is refused before
// anything runs, with what it lacks named.
// REQUIRES: host-x86_64, x86-avx2
// RUN: indexpool-run %s --function=select --random-inputs=3 --verify --cpu=x86-64 | FileCheck %s --check-prefix=OK
// RUN: indexpool-run %s --function=select --random-inputs=3 --verify --cpu=x86-64-v3 | FileCheck %s --check-prefix=OK
// RUN: indexpool-run %s --function=select --random-inputs=3 --verify --cpu=host | FileCheck %s --check-prefix=OK
// RUN: not indexpool-run %s --function=select --random-inputs=3 --cpu=neoverse-v2 2>&1 | FileCheck %s --check-prefix=ARCH
// RUN: %if !amx %{ not indexpool-run %s --function=select --random-inputs=3 --cpu=sapphirerapids 2>&1 | FileCheck %s --check-prefix=LACKS %}
//
// OK: result #0 {{.*}} -> ok
// ARCH: error: CPU target 'neoverse-v2' is aarch64 code; this host is x86_64
// LACKS: error: CPU target 'sapphirerapids' needs features this host ({{.*}}) lacks: {{.*}}amx-tile

func.func @select(%q: tensor<1x8x128xbf16>, %w: tensor<1x8xf32>,
                  %keys: tensor<512x128xf8E4M3FN>, %scales: tensor<512xf32>)
    -> tensor<1x64xi32> {
  %idx = indexpool.select %q, %w, %keys scales(%scales)
      {k = 16 : i64, pool_size = 4 : i64}
      : (tensor<1x8x128xbf16>, tensor<1x8xf32>, tensor<512x128xf8E4M3FN>,
         tensor<512xf32>) -> tensor<1x64xi32>
  return %idx : tensor<1x64xi32>
}
