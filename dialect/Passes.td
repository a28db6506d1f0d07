//===- Passes.td - indexpool transformation passes --------*- tablegen -*-===//
#ifndef INDEXPOOL_PASSES_TD
#define INDEXPOOL_PASSES_TD

include "mlir/Pass/PassBase.td"

def IndexPoolFuse : Pass<"indexpool-fuse", "func::FuncOp"> {
  let summary = "Fuse pool->[hadamard]->quantize into compress and "
                "score->topk->expand into select";
  let description = [{
    Rewrites the chain `pool -> [hadamard] -> quantize` into one
    `indexpool.compress` and `score -> topk -> expand` into one
    `indexpool.select`, but only when every intermediate value has no other
    user and the roundings of the chain are those the fused op performs
    (see docs/IndexPoolOps.md): the pooled and rotated keys must be rounded to the keys'
    element type, and the top-k values must be unused (select drops them).
    The pool's weights may have other users; they take compress's weights.
    The ops of a chain must sit in one block, and a chain whose dynamic
    intermediates hide a size mismatch between its ends (one the fused op's
    verifier would reject) is left for the runtime to report. Chains that do
    not qualify are left unchanged.

    Example:

    ```mlir
    %p, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
        : (tensor<1024x128xbf16>, tensor<1024xf32>)
          -> (tensor<256x128xbf16>, tensor<256x4xf32>)
    %r = indexpool.hadamard %p : (tensor<256x128xbf16>) -> tensor<256x128xbf16>
    %q, %s = indexpool.quantize %r {pow2_scale}
        : (tensor<256x128xbf16>) -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>)
    // becomes
    %q, %s, %w = indexpool.compress %keys, %scores
        {pool_size = 4 : i64, rotate, pow2_scale}
        : (tensor<1024x128xbf16>, tensor<1024xf32>)
          -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4xf32>)
    ```
  }];
  let dependentDialects = ["::mlir::indexpool::IndexPoolDialect"];
}

def IndexPoolConfigure : Pass<"indexpool-configure"> {
  let summary = "Attach a GPU launch configuration (#indexpool.launch) to "
                "every indexpool op";
  let description = [{
    For the chip named by `chip` (one of the target table's: sm_80, sm_86,
    sm_89, sm_90, sm_90a, sm_100, sm_120), attaches to every indexpool op
    nested in the operation the pass runs on the discardable attribute
    `indexpool.launch = #indexpool.launch<...>`: threads per block, work
    items per block, elements per thread, vector width and grid policy. The
    values come from the cost model for memory-bound kernels
    (lib/Transforms/CostModel.cpp; docs/design.md, "GPU configuration"),
    unless an entry of the JSON tuning database named by `tuning-db`
    matches the chip, the op and its shape; then the entry's fields replace
    the model's. An existing `indexpool.launch` is replaced.

    The tuning database is a JSON array of entries:

    ```json
    [{"chip": "sm_90", "op": "compress", "shape_class": "T>=65536,D=128",
      "launch": {"threads_per_block": 256, "items_per_block": 16,
                 "elements_per_thread": 8, "vector_bytes": 16,
                 "grid": "grid_stride"}}]
    ```

    `op` is the op's mnemonic. `shape_class` (optional; empty matches every
    shape) is a comma-separated list of conditions `NAME OP INTEGER`, OP one
    of `=`, `!=`, `<`, `<=`, `>`, `>=`, over the op sizes of docs/IndexPoolOps.md that
    the op has: T, G, D, P (pool, compress, residual, reconstruct), N and D
    (hadamard, quantize, dequantize), M, H, N, D (score, select, plus K and
    P for select), M, N, K (topk), M, K, P (expand). A condition on a size
    the op lacks or that is dynamic does not hold. `launch` may give any
    subset of the five fields. The first matching entry wins. Entries whose
    chip is `cpu` are for --indexpool-configure-cpu; this pass checks them
    but does not use them.

    Example: `--indexpool-configure="chip=sm_90 tuning-db=tuning.json"`.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "Target chip (required): sm_80, sm_86, sm_89, sm_90, sm_90a, "
           "sm_100 or sm_120">,
    Option<"tuningDb", "tuning-db", "std::string", /*default=*/"\"\"",
           "JSON tuning database whose entries override the cost model">,
  ];
  let dependentDialects = ["::mlir::indexpool::IndexPoolDialect"];
}

def IndexPoolConfigureCpu : Pass<"indexpool-configure-cpu"> {
  let summary = "Attach per-op CPU vector widths (indexpool.vector_width) "
                "from a tuning database";
  let description = [{
    Reads the CPU entries (`"chip": "cpu"`, or `"cpu:NAME"` for CPU target
    NAME only) of the JSON tuning database named
    by `tuning-db` (the format of --indexpool-configure; docs/design.md, "The
    tuning database") and attaches to every indexpool op nested in the
    operation the pass runs on that an entry matches the discardable
    attribute `indexpool.vector_width = W : i64`, W the entry's
    `vector_width`: the f32 lanes of the op's loops over D, which
    --indexpool-to-loops then uses instead of its `vector-width` option. An
    existing `indexpool.vector_width` is replaced; ops no entry matches are
    left alone. The GPU entries are checked but not used.

    A CPU entry's `launch` takes only `vector_width`, a power of two from 1
    to 64; `op` and `shape_class` match as for GPU entries; the first entry
    of the `cpu` option's target that matches wins, else the first `"cpu"`
    entry that matches (indexpool-tune writes `"cpu:NAME"` entries, NAME
    the CPU it measured on):

    ```json
    [{"chip": "cpu", "op": "compress", "shape_class": "T>=65536, D=128",
      "launch": {"vector_width": 16}}]
    ```

    Example: `--indexpool-configure-cpu="tuning-db=tuning.json"`.
  }];
  let options = [
    Option<"tuningDb", "tuning-db", "std::string", /*default=*/"\"\"",
           "JSON tuning database whose CPU entries set the ops' vector "
           "widths (required)">,
    Option<"cpu", "cpu", "std::string", /*default=*/"\"\"",
           "The CPU target compiled for (a row of --cpu's table): its "
           "\"cpu:NAME\" entries first; empty: only \"cpu\" entries">,
  ];
  let dependentDialects = ["::mlir::indexpool::IndexPoolDialect"];
}

#endif // INDEXPOOL_PASSES_TD
