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
    - `elements_per_thread`: elements of a row one thread holds: its whole
      share of the row when a group covers the row.
    - `vector_bytes`: the width of the vector loads and stores, 4, 8 or 16
      (16 gives `ld.global.v4.b32`).
    - `grid`: `tiled` launches one block per tile, `ceil(items /
      items_per_block)` blocks; `grid_stride` launches one wave of resident
      blocks and each block strides over the tiles. A wave is, for now, the
      chip table's SM count x the blocks of `threads_per_block` threads
      that fit an SM by threads and by its block limit (a later step takes
      the SM count from the device at launch).

    What each op's kernel takes from the fields (`--indexpool-to-gpu-kernels`,
    and the row loops of `--indexpool-to-loops` on the GPU path):

    - `compress`, `pool`, `hadamard`, `quantize` (warp-row kernels): every
      field. A block of T threads has T / L row groups of L lanes; a tile
      of `items_per_block` rows is handled by each group a row at a time
      (rows g, g + T/L, ... of the tile). The row layout is E =
      `vector_bytes` / element bytes channels per access, C =
      `elements_per_thread` / E accesses per lane, L = D / (E*C) lanes,
      when that is a layout (E and L powers of two, L <= 32, C <= 8);
      otherwise, and without the attribute, 16-byte accesses. Without the
      attribute a tile is one row per group, tiled.
    - `score`: `threads_per_block` (at most 256), `items_per_block` (key
      rows per tile; the threads loop over the tile), `vector_bytes` (the
      width of the key loads, at most 16 bytes), `grid` (without the
      attribute: tiles of one row per thread, grid-stride). A wave of the
      score kernel is one block per SM and query row: a thread holds 64
      accumulators, so registers allow no second block.
      `elements_per_thread` has no meaning: a thread streams whole key
      rows.
    - `topk`: `threads_per_block`, `elements_per_thread` (the fewest
      columns per thread of a row segment: a row is split into segments,
      one block each, for its prefix histogram and candidate filter, as
      many as one wave of blocks over all rows needs and segments of at
      least `threads_per_block x elements_per_thread` columns allow),
      `items_per_block` (query rows per tile of the exact selection among
      the candidates, one row at a time per block; default 1), `grid` (of
      that selection; default tiled). Loads are 4-byte: `vector_bytes` has
      no effect on it yet.
    - `expand`: `threads_per_block`, `items_per_block` (query rows per
      tile; the block's threads take the tile's (row, index) entries in
      order; default: as many rows as the block has threads for), `grid`
      (default tiled). An entry is one i32 index and P token stores:
      `elements_per_thread` and `vector_bytes` have no meaning.
    - `select`: split into `score`, `topk` and `expand`; score and expand
      take the select's attribute, topk the cost model's topk launch for
      its `[M, N]` logits on the same chip (the select's fields are the
      score's). `select_paged` and `refine` run their topk with their own
      attribute but one column per thread.
    - `dequantize`, `residual`, `reconstruct` and the ops no kernel covers
      (row loops, one row per thread): `threads_per_block` (at most 256),
      `items_per_block` (rows per block tile: each thread handles ceil(tile
      / threads) of them) and `grid`, as the loop attributes
      `indexpool.threads_per_block`, `indexpool.items_per_block` and
      `indexpool.max_blocks` that `--indexpool-tile-rows` reads. A thread
      computes a whole row: `elements_per_thread` and `vector_bytes` have
      no meaning there.

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
