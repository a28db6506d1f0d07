//===- IndexPoolAttrs.td - indexpool attributes -----------*- tablegen -*-===//
//
// #indexpool.launch: the launch configuration --indexpool-configure chooses
// for each op on one GPU and --indexpool-to-nvvm follows.
//
//===----------------------------------------------------------------------===//

#ifndef INDEXPOOL_ATTRS_TD
#define INDEXPOOL_ATTRS_TD

include "IndexPoolDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def IndexPool_GridPolicy : I32EnumAttr<"GridPolicy",
    "how the thread blocks of a kernel cover its work items", [
      I32EnumAttrCase<"Tiled", 0, "tiled">,
      I32EnumAttrCase<"GridStride", 1, "grid_stride">]> {
  let cppNamespace = "::mlir::indexpool";
  // A plain C++ enum used as an attribute parameter, not an attribute.
  let genSpecializedAttr = 0;
}

def IndexPool_LaunchAttr : AttrDef<IndexPool_Dialect, "Launch"> {
  let mnemonic = "launch";
  let summary = "how one indexpool op is launched on one GPU";
  let description = [{
    The launch configuration of the kernel that computes one op on the chip
    named by `chip`, attached by `--indexpool-configure` as the discardable
    attribute `indexpool.launch` and read by the GPU lowering. Every op is a
    loop over *work items*, rows of its main operand: pools for `pool` and
    `compress`, rows for `hadamard`, `quantize`, `dequantize`, `residual`
    and `reconstruct`, key rows for `score` and `select`, query rows for
    `topk` and `expand`.

    - `threads_per_block`: a multiple of 32, at most 1024.
    - `items_per_block`: work items one block handles in one pass (a tile).
      A row of D elements is covered by `ceil(D / elements_per_thread)`
      threads (a group of at most one warp); the groups of a block share its
      tile, so a group keeps several rows in flight when the tile holds more
      rows than the block has groups.
    - `elements_per_thread`: elements of a row one thread loads at a time:
      its whole share of the row when a group covers the row, otherwise
      (`topk` over N logits) the step in which the block walks the row.
    - `vector_bytes`: the width of the vector loads and stores, 4, 8 or 16
      (16 gives `ld.global.v4.b32`). It divides the row's byte length where
      that is static; where it does not (dynamic D), the kernel checks the
      alignment at run time and falls back to narrower accesses.
    - `grid`: `tiled` launches one block per tile, `ceil(items /
      items_per_block)` blocks; `grid_stride` launches one wave of resident
      blocks (SM count x blocks per SM on the device it runs on) and each
      block strides over the tiles.

    Example:

    ```mlir
    %q, %s, %w = indexpool.compress %keys, %scores bias(%b)
        {indexpool.launch = #indexpool.launch<chip = "sm_90",
            threads_per_block = 512, items_per_block = 32,
            elements_per_thread = 8, vector_bytes = 16, grid = tiled>,
         pool_size = 4 : i64, pow2_scale, rotate}
        : (tensor<65536x128xbf16>, tensor<65536x128xf32>, tensor<4x128xf32>)
          -> (tensor<16384x128xf8E4M3FN>, tensor<16384xf32>,
              tensor<16384x4x128xf32>)
    ```
  }];
  let parameters = (ins
    StringRefParameter<"the chip, e.g. \"sm_90\"">:$chip,
    AttrParameter<"int64_t", "threads per block, a multiple of 32 "
                  "(at most 1024)">:$threads_per_block,
    AttrParameter<"int64_t", "work items per block and pass (the tile)">
        :$items_per_block,
    AttrParameter<"int64_t", "elements of a row one thread loads at a "
                  "time">:$elements_per_thread,
    AttrParameter<"int64_t", "bytes per vector access: 4, 8 or 16">
        :$vector_bytes,
    EnumParameter<IndexPool_GridPolicy>:$grid
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // INDEXPOOL_ATTRS_TD
