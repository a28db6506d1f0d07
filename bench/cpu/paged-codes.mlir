// bench/cpu/paged_codes.py: select_paged and compress_paged at one decode
// step's size (64K tokens of D = 128, P = 4: 16384 pooled entries in 256
// pages of 64), one function per code type.

func.func @select_f8(%q: tensor<1x1x64x128xbf16>, %w: tensor<1x1x64xf32>,
    %pages: tensor<256x8448xi8>, %table: tensor<1x256xi32>,
    %len: tensor<1x1xi32>) -> tensor<1x1x2051xi32> {
  %t = indexpool.select_paged %q, %w pages(%pages) block_table(%table)
      lengths(%len) {k = 512 : i64, pool_size = 4 : i64}
      : (tensor<1x1x64x128xbf16>, tensor<1x1x64xf32>, tensor<256x8448xi8>,
         tensor<1x256xi32>, tensor<1x1xi32>) -> tensor<1x1x2051xi32>
  return %t : tensor<1x1x2051xi32>
}

func.func @select_i8(%q: tensor<1x1x64x128xbf16>, %w: tensor<1x1x64xf32>,
    %pages: tensor<256x8448xi8>, %table: tensor<1x256xi32>,
    %len: tensor<1x1xi32>) -> tensor<1x1x2051xi32> {
  %t = indexpool.select_paged %q, %w pages(%pages) block_table(%table)
      lengths(%len) {k = 512 : i64, pool_size = 4 : i64, codes = i8}
      : (tensor<1x1x64x128xbf16>, tensor<1x1x64xf32>, tensor<256x8448xi8>,
         tensor<1x256xi32>, tensor<1x1xi32>) -> tensor<1x1x2051xi32>
  return %t : tensor<1x1x2051xi32>
}

func.func @select_i4(%q: tensor<1x1x64x128xbf16>, %w: tensor<1x1x64xf32>,
    %pages: tensor<256x4352xi8>, %table: tensor<1x256xi32>,
    %len: tensor<1x1xi32>) -> tensor<1x1x2051xi32> {
  %t = indexpool.select_paged %q, %w pages(%pages) block_table(%table)
      lengths(%len) {k = 512 : i64, pool_size = 4 : i64, codes = i4}
      : (tensor<1x1x64x128xbf16>, tensor<1x1x64xf32>, tensor<256x4352xi8>,
         tensor<1x256xi32>, tensor<1x1xi32>) -> tensor<1x1x2051xi32>
  return %t : tensor<1x1x2051xi32>
}

func.func @compress_f8(%keys: tensor<65536x128xbf16>, %scores: tensor<65536xf32>,
    %pages: tensor<256x8448xi8>, %slots: tensor<16384xi64>)
    -> tensor<256x8448xi8> {
  %p = indexpool.compress_paged %keys, %scores into %pages at %slots
      {pool_size = 4 : i64, rotate}
      : (tensor<65536x128xbf16>, tensor<65536xf32>, tensor<256x8448xi8>,
         tensor<16384xi64>) -> tensor<256x8448xi8>
  return %p : tensor<256x8448xi8>
}

func.func @compress_i8(%keys: tensor<65536x128xbf16>, %scores: tensor<65536xf32>,
    %pages: tensor<256x8448xi8>, %slots: tensor<16384xi64>)
    -> tensor<256x8448xi8> {
  %p = indexpool.compress_paged %keys, %scores into %pages at %slots
      {pool_size = 4 : i64, rotate, codes = i8}
      : (tensor<65536x128xbf16>, tensor<65536xf32>, tensor<256x8448xi8>,
         tensor<16384xi64>) -> tensor<256x8448xi8>
  return %p : tensor<256x8448xi8>
}

func.func @compress_i4(%keys: tensor<65536x128xbf16>, %scores: tensor<65536xf32>,
    %pages: tensor<256x4352xi8>, %slots: tensor<16384xi64>)
    -> tensor<256x4352xi8> {
  %p = indexpool.compress_paged %keys, %scores into %pages at %slots
      {pool_size = 4 : i64, rotate, codes = i4}
      : (tensor<65536x128xbf16>, tensor<65536xf32>, tensor<256x4352xi8>,
         tensor<16384xi64>) -> tensor<256x4352xi8>
  return %p : tensor<256x4352xi8>
}
