//===- ConversionPasses.td - indexpool lowerings ----------*- tablegen -*-===//
#ifndef INDEXPOOL_CONVERSION_PASSES_TD
#define INDEXPOOL_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def IndexPoolToLoops : Pass<"indexpool-to-loops", "ModuleOp"> {
  let summary = "Lower indexpool ops to scf/vector/arith/math loops on buffers";
  let description = [{
    Replaces every dense indexpool op (fused ones included) by loops over
    memrefs: operands become buffers with `bufferization.to_buffer`, results
    are freshly allocated and returned with `bufferization.to_tensor`, and
    the rest of the function is left to one-shot bufferization. The paged
    ops stay: they write their page pool (and tails) in place, so their
    loops are emitted by one-shot bufferization itself, on the buffers it
    chooses (their `BufferizableOpInterface`, registered by this pass, which
    records its options on them). Rows are
    distributed with `scf.parallel`; the loops over the head dimension D use
    the vector dialect with `vector-width` f32 lanes, or with an op's own
    `indexpool.vector_width` (`--indexpool-configure-cpu`). The score loops
    (score, select, refine and the paged selections) take the heads as the
    vector lanes and multiply with f32 FMAs, or with the bf16 pair dot of
    the `cpu` target (vdpbf16ps, bfdot) when bf16 holds every value of the
    query's and the keys' types, or, with `int8-query`, i8 and i4 keys with
    its int8 dot (vpdpbusd, sdot) against the query quantized per head
    (approximate). Narrow float formats
    (bf16, f16, f8E4M3FN) are converted with round-to-nearest-even.
    This is the first step of the `indexpool-to-cpu` pipeline.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
  let options = [
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"8",
           "f32 lanes of the vectors that loops over D are written with">,
    Option<"cpu", "cpu", "std::string", /*default=*/"\"\"",
           "The CPU target (a row of --cpu's table) whose dot instructions "
           "the score loops use; empty: f32 FMAs">,
    Option<"int8Query", "int8-query", "bool", /*default=*/"false",
           "Score i8 and i4 keys with the CPU target's int8 dot (vpdpbusd, "
           "sdot), the query quantized per head to int8 codes and one f32 "
           "scale: faster, approximate (docs/design.md, CPU targets, "
           "bounds the difference); ignored where the target has none">,
    Option<"stackScopes", "stack-scopes", "bool", /*default=*/"true",
           "Wrap each row's scratch in memref.alloca_scope (CPU rows run in "
           "loops; on the GPU every row is a thread and needs none)">,
    Option<"staticScratch", "static-scratch", "bool", /*default=*/"false",
           "Refuse, with an error at the op, an op whose row loops would "
           "allocate a scratch row of dynamic size (a dynamic D: compress, "
           "hadamard, score, select, refine and the paged ops): on the GPU "
           "every row is a thread, whose scratch would be local memory of "
           "unbounded size">,
  ];
}

def IndexPoolToGPUKernels : Pass<"indexpool-to-gpu-kernels", "ModuleOp"> {
  let summary = "Lower compress, pool, hadamard, quantize, score, topk and "
                "expand to gpu.launch kernels";
  let description = [{
    The GPU kernels of the ops whose memory traffic matters, written as
    `gpu.launch` ops on buffers (operands through `bufferization.to_buffer`,
    results freshly allocated), before `--indexpool-to-loops` lowers the
    remaining ops to row loops:

    - `compress`: ONE kernel, a group of P keys per warp or part of a warp
      (D / (16 bytes of keys) lanes); 16-byte loads of keys and per-channel
      scores, the softmax in registers, the Hadamard rotation as in-register
      and `gpu.shuffle xor` butterflies, the absmax by shuffles, and the FP8
      conversion with `cvt.rn.satfinite.e4m3x2.f32` on chips that have it
      (sm_89 and newer), integer round-to-nearest-even elsewhere. Needs a
      static D whose 16-byte chunks are a power of two or a multiple of 32.
    - `score`: one thread per key row, the query of the block's row m
      decoded once to f32 in shared memory, the key row streamed in 16-byte
      loads with one f32 accumulator per head. Needs static H and D with the
      query in 48 KiB of shared memory.
    - `topk`: one block per row: an exact radix select (8 passes of 8 bits)
      on 64-bit keys (the value's order-preserving bits, then the column
      index reversed, so that ties go to the smaller column and NaN ranks
      last), then the k winners ranked by counting. Any N and k.
    - `pool`, `hadamard`, `quantize`: the same warp-row layout as compress
      (hadamard of rank > 2 on its collapsed rows).
    - `expand`: one thread per selected pool.
    - `select` is split into score -> topk -> expand first.

    Blocks have the op's `#indexpool.launch` threads per block
    (`--indexpool-configure`), else `threads-per-block`. Ops whose shapes
    a kernel does not cover are left for `--indexpool-to-loops`.

    With `tensor-cores` (the default), `score` (and the score parts of `select`,
    `refine` and `select_paged`, which then keep their bit-identity with
    `score` on the GPU: the same MMAs in the same order for every logit;
    one query row per block for refine's candidates and a sequence's pages,
    FP8 codes read from the pages as they are) runs on the tensor cores:
    `nvvm.mma.sync` m16n8k16 on bf16 (`nvgpu.mma.sync` does not lower bf16
    in MLIR 22), the keys as the MMA's A operand (16 key rows per tile)
    and the query as its B (8 heads per tile): each warp loads and decodes
    the fragments of its key tiles once, into registers, and streams every
    query row past them (the keys are read once for all query rows; blocks
    of at most 256 threads), in k-steps of 16 channels, each lane's channels
    contiguous so that one load of `vector_bytes` (default 16) feeds several
    k-steps; FP8 keys decoded to bf16 exactly (`cvt.rn.f16x2.e4m3x2` from
    sm_89, in software before), the scale, ReLU, head weights and the sum
    over heads in registers and xor shuffles. An FP8 e4m3 query with FP8
    keys takes `mma.sync` m16n8k32 on e4m3 where the chip runs it natively,
    sm_89, sm_100 and sm_120 (the LLVM intrinsic: `nvvm.mma.sync` has no
    e4m3 in MLIR 22; it needs PTX ISA 8.4, which the NVVM pipeline then
    targets), D a multiple of 32 up to 256. Otherwise it takes a bf16 query
    with H a multiple of 16 up to 128, D a multiple of 16 up to 128, and
    FP8 e4m3 or bf16 keys; an FP8 e4m3 query elsewhere (sm_80, sm_86, and
    sm_90, whose e4m3 `mma.sync` ptxas expands into conversions and f16
    MMAs; or with bf16 keys) is first decoded to bf16 by a kernel of its own
    (exact: every e4m3 value is a bf16 value) and takes the bf16 MMA. Other
    shapes and types (the paged ops' `i4` codes among them) keep the
    CUDA-core kernel, silently. On sm_90a (H100 / H200 built for their
    architecture-specific instructions) the same scores take warpgroup MMAs
    instead (`nvvm.wgmma.mma_async`, both operands in shared memory,
    K-major without swizzle: m64nHk16 on bf16, m64nHk32 on e4m3): a block
    of one or two warpgroups copies 64 key rows per warpgroup (FP8 keys
    decoded to bf16 on the way for a bf16 query) and the query row into
    shared memory, fences the async proxy, and each warpgroup multiplies
    its 64 rows by all H heads; the epilogue is the same operations in the
    same order, so the bit-identities above hold there too. sm_100 and
    sm_120 keep `mma.sync` (wgmma is sm_90a's only). On by default: the logits then differ from the CPU's
    in the last bits (a different summation order); `tensor-cores=false`
    keeps the CUDA-core kernels, whose logits equal the CPU's bit for bit.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_80\"",
           "Target GPU (decides the FP8 conversion and MMA instructions)">,
    Option<"threadsPerBlock", "threads-per-block", "int64_t",
           /*default=*/"::indexpool::target::kDefaultThreadsPerBlock",
           "Block size of ops without a launch configuration (a multiple "
           "of 32)">,
    Option<"requireStaticShapes", "require-static-shapes", "bool",
           /*default=*/"false",
           "Fail with one error on an indexpool op with a dynamic size (the "
           "NVVM pipeline's kernels take bare pointers, which need static "
           "shapes; the GPU emulator does not)">,
    Option<"tensorCores", "tensor-cores", "bool", /*default=*/"true",
           "The scores of score, select, refine and select_paged on the "
           "tensor cores (mma.sync, wgmma on sm_90a; a bf16 or FP8 query "
           "with FP8 or bf16 keys, an FP8 query decoded to bf16 first where "
           "the chip has no native e4m3 MMA; H and D multiples of 16; other "
           "shapes keep the CUDA-core kernel). On by default; false gives "
           "the CUDA-core kernels, whose logits equal the CPU's bit for bit "
           "(the tensor cores' differ in the last bits: summation order)">,
  ];
}

def IndexPoolEmulateGPUKernels
    : Pass<"indexpool-emulate-gpu-kernels", "ModuleOp"> {
  let summary = "Run gpu.launch kernels on CPU threads (tests of the GPU kernels)";
  let description = [{
    Replaces every `gpu.launch` by a loop over its blocks, each block an
    `omp.parallel` team of exactly `blockDim.x` OpenMP threads, one per GPU
    thread, so that the kernels of `--indexpool-to-gpu-kernels` can be run
    and verified on a machine without a GPU (`indexpool-run
    --device=gpu-emulator`). Workgroup buffers become stack buffers shared by
    the team, `gpu.barrier` becomes `omp.barrier`, `gpu.shuffle xor`
    exchanges through a shared array between two barriers (every thread of
    the block must reach every shuffle, which the kernels guarantee),
    `nvvm.match.sync any` (full warp) compares the published values of the
    warp's lanes, and
    `nvvm.mma.sync` (m16n8k16, bf16 A and B, f32 accumulators) computes
    each lane's accumulators from the warp's fragments, published to a
    shared array between two barriers (the PTX ISA's fragment layouts;
    sums in k order, one valid order of the unspecified hardware one),
    `nvvm.wgmma.mma_async` (m64nNk16 on bf16, m64nNk32 on e4m3, K-major A
    and B, f32 accumulators) computes each thread's accumulators straight
    from the team's shared buffer its descriptors point into (the one
    buffer whose address the descriptor is built from; start address,
    leading and stride byte offsets decoded as the PTX ISA defines them,
    no swizzle), synchronously, so that wgmma's fence, commit and wait and
    `nvvm.fence.proxy` have nothing left to do and are dropped, and
    `nvvm.convert.f32x2.to.f8x2` (rn, satfinite, e4m3) becomes the software
    round-to-nearest-even encoder. A team with another number of threads
    calls `indexpool_gpu_emulator_team_mismatch(got, expected)`, which the
    host must define (indexpool-run prints an error and exits). The host
    code's query of the device's SM count (`__indexpool_device_sm_count`,
    which sizes the grid-stride waves) becomes `sm-count`, the emulated
    chip's count.

    What this does not emulate: warp-level timing, memory-model corner
    cases beyond barriers, and the NVVM/PTX lowering itself.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::omp::OpenMPDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
  let options = [
    Option<"beforeDeallocation", "before-deallocation", "bool",
           /*default=*/"false",
           "First of two runs, before the buffer deallocation pipeline, "
           "which rejects ops without declared memory effects such as "
           "omp.barrier: barriers stay calls of "
           "indexpool_gpu_emulator_barrier, which the second run (after "
           "it) turns into omp.barrier">,
    Option<"smCount", "sm-count", "int64_t", /*default=*/"0",
           "The SM count of the emulated device (the chip's, from the target "
           "table): what the host's device-SM-count queries return">,
  ];
}

// The generic steps of the GPU pipeline, implemented in lib/Transforms/GPU:
// upstream gpu / scf / vector IR in and out, no indexpool ops. Declared with
// the lowerings they follow, so that they are registered and declared with
// them (registerIndexPoolConversionPasses, indexpool/Conversion/Passes.h).

def IndexPoolOutlineKernels
    : Pass<"indexpool-outline-kernels", "ModuleOp"> {
  let summary = "gpu-kernel-outlining that keeps each launch's residency "
                "hint";
  let description = [{
    Runs upstream `gpu-kernel-outlining`, which copies only the known block
    and grid sizes of a `gpu.launch` to its `gpu.func`. A launch may carry
    `indexpool.min_blocks_per_sm = N` (the fused kernels set it where one
    block per SM is the design, such as a top-k block per row): the outlined
    kernel gets `nvvm.minctasm = N` (PTX `.minnctapersm`), so that ptxas
    caps its registers by N blocks of its size per SM rather than by the
    occupancy it would otherwise aim for, and does not spill to reach it.
    The hints are matched to the `gpu.launch_func` ops by position:
    outlining replaces each launch in place.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def IndexPoolCheckKernelLimits
    : Pass<"indexpool-check-kernel-limits", "ModuleOp"> {
  let summary = "Refuse outlined kernels beyond a chip's per-block limits";
  let description = [{
    After outlining and merging, every kernel's block size (its
    `known_block_size`) and its static shared memory (the bytes of its
    workgroup attributions and of the workgroup globals of its module) are
    checked against the chip's limits (lib/Target/Chips.cpp): threads per
    block and the static shared memory a block may have without the
    dynamic opt-in. A kernel beyond one is an error naming the kernel, the
    chip, the need and the limit, at compile time, rather than a launch
    that fails on the device. Registers need no check: every kernel carries
    its block size (`.maxntid`), so ptxas fits the registers to it (the
    static gate, test/gpu_kernel_gate.py, finds the spills that may cost).
  }];
  let options = [Option<"chip", "chip", "std::string", "\"sm_90\"",
                        "the chip whose limits apply (lib/Target/Chips.cpp)">];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
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

    On the way it makes the launches safe for a runtime: a launch whose grid
    or block has a constant 0 (a zero-sized op) is dropped with its kernel,
    and one empty gpu.module is kept when nothing is launched; a grid beyond
    CUDA's limits (x above 2^31 - 1, y or z above 65535) is an error at the
    op; every module and kernel name becomes a PTX identifier (valid names
    stay, others become `_` plus the name with `$XX` for each other byte, so
    distinct names never collide).
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def IndexPoolKernelSizeParams
    : Pass<"indexpool-kernel-size-params", "ModuleOp"> {
  let summary = "Pass the buffers of dynamic size a gpu.launch uses as a "
                "pointer plus its sizes";
  let description = [{
    Kernels take plain pointers (the bare-pointer calling convention: what
    a runtime outside MLIR passes), which needs memrefs of static shape. So
    that one compiled kernel serves every size, each buffer of dynamic shape
    that the body of a `gpu.launch` uses is passed as a 1-element view of
    its first element (a `memref.reinterpret_cast` on the host, which the
    manifest treats as the buffer itself) plus its dynamic sizes as index
    values (memref.dim on the host): after outlining, the kernel takes a
    pointer and i64 sizes, and rebuilds the buffer's view at its start
    (a `memref.reinterpret_cast` to the original type, strides from the
    sizes). Run after gpu-launch-sink-index-computations (which would sink
    the sizes' memref.dim back into the kernel) and before
    gpu-kernel-outlining. Buffers must be row-major and contiguous (identity
    layout): any other is an error naming the type.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def IndexPoolAlignSharedBuffers
    : Pass<"indexpool-align-shared-buffers", "gpu::GPUModuleOp"> {
  let summary = "Align every workgroup buffer of the kernels to 16 bytes";
  let description = [{
    Outlined kernels get their shared memory from `gpu.launch` workgroup
    attributions, which the NVVM lowering aligns to the element size only.
    The kernels read them with 16-byte `ld.shared.v4`, which needs 16-byte
    alignment: this pass sets `llvm.align = 16` on every workgroup
    attribution of every `gpu.func` (the lowering turns it into
    `.shared .align 16`).
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def IndexPoolRecordParamAlignment
    : Pass<"indexpool-record-param-alignment", "ModuleOp"> {
  let summary = "Record on each gpu.launch_func the alignment its kernel's "
                "pointer parameters need";
  let description = [{
    A kernel that reads a buffer with 16-byte vector loads needs a 16-byte
    aligned pointer: a runtime outside MLIR that passes its own device
    pointers must know it. For every `gpu.launch_func`, this pass looks at
    the launched `gpu.func`'s memref arguments (and the views made of them)
    and records, as `indexpool.param_alignment = array<i64: ...>` on the
    launch, the largest alignment any access needs: a vector access's
    `alignment` when it has one, else its vector's bytes, else (scalar
    accesses) the element's bytes; 0 for a parameter that is not a memref.
    indexpool-compile writes it as each buffer parameter's `align` in the
    manifest (docs/manifest.md), and the launcher checks it.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def IndexPoolDropEmptyKernelArgs
    : Pass<"indexpool-drop-empty-kernel-args", "ModuleOp"> {
  let summary = "Drop kernel parameters whose static memref type holds no "
                "element";
  let description = [{
    A buffer of a static shape with a zero size (a token tier's empty tail
    `[B, 0, D]`, a block table `[B, 0]`) is never read or written, but the
    bare-pointer lowering of `gpu.func` refuses its type. For every kernel,
    each such parameter is replaced by a local zero-element
    `memref.alloca` and removed from the kernel and from every
    `gpu.launch_func` of it (nothing was passed through it).
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect"];
}

def IndexPoolLowerVectorMasks
    : Pass<"indexpool-lower-vector-masks", "gpu::GPUModuleOp"> {
  let summary = "Lower vector.create_mask / constant_mask in GPU kernels";
  let description = [{
    The masked tails of row loops over D (D not a multiple of the vector
    width) become `vector.constant_mask` once shapes are static, which
    `convert-gpu-to-nvvm` does not lower. This pass rewrites masks into
    constants and comparisons (upstream's mask lowering patterns) inside
    the kernels, before the NVVM conversion.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
}

def IndexPoolTileRows : Pass<"indexpool-tile-rows", "ModuleOp"> {
  let summary = "Tile each outermost scf.parallel row loop by its block size";
  let description = [{
    Splits every outermost `scf.parallel` into blocks (outer loop) of
    threads (inner loop, constant bound plus an in-bounds check), ready for
    `gpu-map-parallel-loops`. The block size is the loop's
    `indexpool.threads_per_block` (set by `--indexpool-to-loops` from the
    op's `#indexpool.launch`, i.e. from `--indexpool-configure`), else
    `threads-per-block`. A loop with `indexpool.items_per_block` gives each
    block tiles of that many rows (its threads take rows t, t + threads, ...
    of a tile); with `indexpool.blocks_per_sm` too, one wave of blocks
    strides over the tiles (the launch's `grid = grid_stride`): that many
    blocks per SM of the device that runs the function, whose SM count the
    host code asks for at run time (a call of the declared
    `__indexpool_device_sm_count`: the manifest's `sm_count` size, the chip's
    count in the GPU emulator). Grids are unsigned index arithmetic on the
    row counts. Other dimensions of a multi-dimensional loop are tiled by 1.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect"];
  let options = [
    Option<"threadsPerBlock", "threads-per-block", "int64_t", /*default=*/"128",
           "Block size of loops without a launch configuration (a multiple "
           "of 32 in [32, 1024])">,
  ];
}

#endif // INDEXPOOL_CONVERSION_PASSES_TD
