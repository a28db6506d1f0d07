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
    (SPEC.md §3): the pooled and rotated keys must be rounded to the keys'
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

#endif // INDEXPOOL_PASSES_TD
