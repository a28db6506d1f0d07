//===- ConversionPasses.td - indexpool lowerings ----------*- tablegen -*-===//
#ifndef INDEXPOOL_CONVERSION_PASSES_TD
#define INDEXPOOL_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def IndexPoolToLoops : Pass<"indexpool-to-loops", "ModuleOp"> {
  let summary = "Lower indexpool ops to scf/vector/arith/math loops on buffers";
  let description = [{
    Replaces every indexpool op (fused ones included) by loops over
    memrefs: operands become buffers with `bufferization.to_buffer`, results
    are freshly allocated and returned with `bufferization.to_tensor`, and
    the rest of the function is left to one-shot bufferization. Rows are
    distributed with `scf.parallel`; the loops over the head dimension D use
    the vector dialect with `vector-width` f32 lanes. Narrow float formats
    (bf16, f16, f8E4M3FN) are converted with round-to-nearest-even.
    This is the first step of the `indexpool-to-cpu` pipeline.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
  let options = [
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"8",
           "f32 lanes of the vectors that loops over D are written with">,
    Option<"stackScopes", "stack-scopes", "bool", /*default=*/"true",
           "Wrap each row's scratch in memref.alloca_scope (CPU rows run in "
           "loops; on the GPU every row is a thread and needs none)">,
  ];
}

def IndexPoolMergeKernelModules
    : Pass<"indexpool-merge-kernel-modules", "ModuleOp"> {
  let summary = "Move every outlined GPU kernel into one gpu.module";
  let description = [{
    gpu-kernel-outlining puts each kernel in its own gpu.module, which would
    make one binary per kernel. This pass moves all kernels of a module into
    the first gpu.module (renaming each after the module it came from, which
    is unique) and updates the gpu.launch_func ops, so that a function
    compiles to one PTX / cubin that a runtime loads once.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def IndexPoolTileRows : Pass<"indexpool-tile-rows", "func::FuncOp"> {
  let summary = "Tile each outermost scf.parallel row loop by its block size";
  let description = [{
    Splits every outermost `scf.parallel` into blocks (outer loop) of
    threads (inner loop, constant bound plus an in-bounds check), ready for
    `gpu-map-parallel-loops`. The block size is the loop's
    `indexpool.threads_per_block` (set by `--indexpool-to-loops` from the
    op's `#indexpool.launch`, i.e. from `--indexpool-configure`), else
    `threads-per-block`. Other dimensions of a multi-dimensional loop are
    tiled by 1.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
  let options = [
    Option<"threadsPerBlock", "threads-per-block", "int64_t", /*default=*/"128",
           "Block size of loops without a launch configuration">,
  ];
}

#endif // INDEXPOOL_CONVERSION_PASSES_TD
