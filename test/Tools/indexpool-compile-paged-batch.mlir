// A dynamic batch in the paged ops' functions: the host part views the
// batch's rows through memref.collapse_shape, and the manifest's sizes
// follow those views (their size is the product of the collapsed input
// sizes). Evaluated for a batch of 3 (eval_sizes.py, independent of the
// runtime), the dynamic manifest gives every buffer shape and grid that
// the manifest compiled for exactly that batch gives (the kernels' names
// differ, and the static kernels take no size parameters).
// RUN: rm -rf %t && mkdir -p %t
// RUN: indexpool-compile %s --chip=sm_90 --function=select_any -o %t > /dev/null
// RUN: indexpool-compile %s --chip=sm_90 --function=select_3 -o %t > /dev/null
// RUN: python3 %S/Inputs/eval_sizes.py %t/select_any.sm_90.json 132 3x1x4x64 3x1x4 5x544 3x2 3x1 | awk '{ if ($1 == "launch") print $1, $3, $4; else print }' > %t/select_any.txt
// RUN: python3 %S/Inputs/eval_sizes.py %t/select_3.sm_90.json 132 3x1x4x64 3x1x4 5x544 3x2 3x1 | awk '{ if ($1 == "launch") print $1, $3, $4; else print }' > %t/select_3.txt
// RUN: diff %t/select_any.txt %t/select_3.txt
// RUN: python3 %S/Inputs/eval_sizes.py %t/select_any.sm_90.json 132 3x1x4x64 3x1x4 5x544 3x2 3x1 | FileCheck %s --check-prefix=SELECT
// RUN: indexpool-compile %s --chip=sm_90 --function=append_any -o %t > /dev/null
// RUN: indexpool-compile %s --chip=sm_90 --function=append_3 -o %t > /dev/null
// RUN: python3 %S/Inputs/eval_sizes.py %t/append_any.sm_90.json 132 3x5x64 3x5 3x3x64 3x3 3 4x544 3x2 | awk '{ if ($1 == "launch") print $1, $3, $4; else print }' > %t/append_any.txt
// RUN: python3 %S/Inputs/eval_sizes.py %t/append_3.sm_90.json 132 3x5x64 3x5 3x3x64 3x3 3 4x544 3x2 | awk '{ if ($1 == "launch") print $1, $3, $4; else print }' > %t/append_3.txt
// RUN: diff %t/append_any.txt %t/append_3.txt
// RUN: python3 %S/Inputs/eval_sizes.py %t/append_any.sm_90.json 132 3x5x64 3x5 3x3x64 3x3 3 4x544 3x2 | FileCheck %s --check-prefix=APPEND

// The rotation runs over all B x S x H = 12 query rows.
// SELECT: buffer 6 output 3x1x19
// SELECT: launch {{.*}} params 12 12
// APPEND: output 4x544

func.func @select_any(%q: tensor<?x1x4x64xf32>, %w: tensor<?x1x4xf32>, %pages: tensor<?x544xi8>, %table: tensor<?x?xi32>, %lengths: tensor<?x1xi32>) -> tensor<?x1x19xi32> {
  %r = indexpool.hadamard %q : (tensor<?x1x4x64xf32>) -> tensor<?x1x4x64xf32>
  %t = indexpool.select_paged %r, %w pages(%pages) block_table(%table) lengths(%lengths) {k = 4 : i64, page_entries = 8 : i64, pool_size = 4 : i64} : (tensor<?x1x4x64xf32>, tensor<?x1x4xf32>, tensor<?x544xi8>, tensor<?x?xi32>, tensor<?x1xi32>) -> tensor<?x1x19xi32>
  return %t : tensor<?x1x19xi32>
}
func.func @select_3(%q: tensor<3x1x4x64xf32>, %w: tensor<3x1x4xf32>, %pages: tensor<?x544xi8>, %table: tensor<3x?xi32>, %lengths: tensor<3x1xi32>) -> tensor<3x1x19xi32> {
  %r = indexpool.hadamard %q : (tensor<3x1x4x64xf32>) -> tensor<3x1x4x64xf32>
  %t = indexpool.select_paged %r, %w pages(%pages) block_table(%table) lengths(%lengths) {k = 4 : i64, page_entries = 8 : i64, pool_size = 4 : i64} : (tensor<3x1x4x64xf32>, tensor<3x1x4xf32>, tensor<?x544xi8>, tensor<3x?xi32>, tensor<3x1xi32>) -> tensor<3x1x19xi32>
  return %t : tensor<3x1x19xi32>
}
func.func @append_any(%keys: tensor<?x?x64xf32>, %scores: tensor<?x?xf32>, %tk: tensor<?x3x64xf32>, %ts: tensor<?x3xf32>, %lengths: tensor<?xi32>, %pages: tensor<?x544xi8>, %table: tensor<?x?xi32>) -> (tensor<?x544xi8>, tensor<?x3x64xf32>, tensor<?x3xf32>) {
  %p, %k, %s = indexpool.append_paged %keys, %scores tail(%tk, %ts) lengths(%lengths) into %pages block_table(%table) {page_entries = 8 : i64, pool_size = 4 : i64, rotate} : (tensor<?x?x64xf32>, tensor<?x?xf32>, tensor<?x3x64xf32>, tensor<?x3xf32>, tensor<?xi32>, tensor<?x544xi8>, tensor<?x?xi32>) -> (tensor<?x544xi8>, tensor<?x3x64xf32>, tensor<?x3xf32>)
  return %p, %k, %s : tensor<?x544xi8>, tensor<?x3x64xf32>, tensor<?x3xf32>
}
func.func @append_3(%keys: tensor<3x?x64xf32>, %scores: tensor<3x?xf32>, %tk: tensor<3x3x64xf32>, %ts: tensor<3x3xf32>, %lengths: tensor<3xi32>, %pages: tensor<?x544xi8>, %table: tensor<3x?xi32>) -> (tensor<?x544xi8>, tensor<3x3x64xf32>, tensor<3x3xf32>) {
  %p, %k, %s = indexpool.append_paged %keys, %scores tail(%tk, %ts) lengths(%lengths) into %pages block_table(%table) {page_entries = 8 : i64, pool_size = 4 : i64, rotate} : (tensor<3x?x64xf32>, tensor<3x?xf32>, tensor<3x3x64xf32>, tensor<3x3xf32>, tensor<3xi32>, tensor<?x544xi8>, tensor<3x?xi32>) -> (tensor<?x544xi8>, tensor<3x3x64xf32>, tensor<3x3xf32>)
  return %p, %k, %s : tensor<?x544xi8>, tensor<3x3x64xf32>, tensor<3x3xf32>
}
