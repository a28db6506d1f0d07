//===- Passes.h - indexpool lowerings and pipelines -------------*- C++ -*-===//
#ifndef INDEXPOOL_CONVERSION_PASSES_H
#define INDEXPOOL_CONVERSION_PASSES_H

#include "indexpool/Target/Chips.h"
#include "mlir/Pass/Pass.h"

#include <string>

namespace mlir {
class OpPassManager;
namespace arith { class ArithDialect; }
namespace bufferization { class BufferizationDialect; }
namespace gpu { class GPUDialect; class GPUModuleOp; }
namespace math { class MathDialect; }
namespace memref { class MemRefDialect; }
namespace LLVM { class LLVMDialect; }
namespace NVVM { class NVVMDialect; }
namespace omp { class OpenMPDialect; }
namespace scf { class SCFDialect; }
namespace func { class FuncDialect; class FuncOp; }
namespace vector { class VectorDialect; }
} // namespace mlir

namespace mlir::indexpool {

#define GEN_PASS_DECL
#include "indexpool/Dialect/ConversionPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "indexpool/Dialect/ConversionPasses.h.inc"

/// On a gpu.launch: the blocks of it an SM must hold at once (an i64 > 0).
/// A kernel built for one block per SM says so, and ptxas may then give it
/// every register that leaves (--indexpool-outline-kernels).
inline constexpr llvm::StringLiteral kMinBlocksPerSMAttrName =
    "indexpool.min_blocks_per_sm";

/// Options of the `indexpool-to-cpu` pipeline.
struct CPUPipelineOptions {
  int64_t vectorWidth = 8;
  /// The CPU target (Target/CpuTargets.h) whose dot instructions the score
  /// loops use; empty: f32 FMAs.
  std::string cpu;
  /// i8 / i4 keys scored with the CPU target's int8 dot, the query
  /// quantized per head (approximate: docs/design.md, CPU targets); opt-in.
  bool int8Query = false;
  /// A JSON tuning database: when set, --indexpool-configure-cpu runs first
  /// and the ops its CPU entries match take their entry's vector width in
  /// place of `vectorWidth`.
  std::string tuningDb;
  /// When set (a chip name), compress, score, topk, expand and select become
  /// that chip's GPU kernels, run on CPU threads by the GPU emulator
  /// (--indexpool-emulate-gpu-kernels): how GPU kernels are tested here.
  std::string emulatedGPU;
  /// Run --indexpool-configure for that chip first (what indexpool-compile
  /// does when the ops carry no #indexpool.launch).
  bool configureEmulatedGPU = true;
  /// The emulated GPU's scores on the tensor cores (--indexpool-to-gpu-kernels
  /// tensor-cores, the default).
  bool emulatedTensorCores = true;
  /// Check every memref and vector access against its buffer (upstream
  /// --generate-runtime-verification plus vector loads and stores): one
  /// outside prints an error line and exits with 1 instead of corrupting
  /// memory. What the tests run with.
  bool checkBounds = false;
  /// With checkBounds: the failure message reads "TOOL: error: ..." (just
  /// "error: ..." when empty).
  std::string toolName;
  /// A function returns the arguments it returns (updated in place, or
  /// unchanged) as themselves rather than as copies: results may then be
  /// the caller's own buffers, which the caller must not free (the JIT's
  /// writable arguments).
  bool returnArguments = false;
};

/// indexpool ops on tensors -> loops -> one-shot bufferization -> LLVM
/// dialect, runnable by mlir-runner and mlir::ExecutionEngine.
void buildIndexPoolToCPUPipeline(OpPassManager &pm,
                                 const CPUPipelineOptions &options = {});

/// Options of the `indexpool-to-nvvm` pipeline.
struct GPUPipelineOptions {
  std::string chip = "sm_90";
  /// PTX ISA version to emit, e.g. 80 for PTX 8.0 (from the target table).
  int ptxVersion = 80;
  /// "isa" (PTX), "bin" (cubin) or "fatbin".
  std::string format = "isa";
  /// Where ptxas and libdevice are (CUDA_HOME).
  std::string cudaToolkit = "/usr/local/cuda";
  /// Threads per block of the kernels of ops without an #indexpool.launch
  /// (a multiple of 32; register-heavy kernels take at most 256).
  int64_t threadsPerBlock = ::indexpool::target::kDefaultThreadsPerBlock;
  /// compileForGPU: run --indexpool-configure for the chip first when the
  /// function's ops carry no #indexpool.launch.
  bool configureUnconfigured = true;
  /// compileForGPU: run --indexpool-fuse first (one kernel per fused chain,
  /// no intermediates in device memory).
  bool fuse = true;
  /// compileForGPU: a JSON tuning database (--indexpool-configure's
  /// tuning-db); when set, every op is configured from it and the cost
  /// model, replacing any #indexpool.launch it carries.
  std::string tuningDb;
  int64_t vectorWidth = 8;
  /// The scores on the tensor cores (--indexpool-to-gpu-kernels
  /// tensor-cores, the default): logits not bit-identical to the CPU's
  /// (false: the CUDA-core kernels, which are). On sm_89 and newer it raises
  /// the PTX version to at least 8.4 (FP8 mma.sync).
  bool tensorCores = true;
};

/// indexpool ops on tensors -> row loops -> GPU kernels -> NVVM ->
/// gpu.binary with PTX or cubin for one chip.
void buildIndexPoolToNVVMPipeline(OpPassManager &pm,
                                  const GPUPipelineOptions &options);

/// Registers `--indexpool-to-cpu`.
void registerIndexPoolPipelines();

/// The options for `chip` from the target table (its PTX version), or an
/// error listing the known chips.
FailureOr<GPUPipelineOptions> gpuPipelineOptionsFor(StringRef chip,
                                                    std::string &error);

/// Registers `--indexpool-to-nvvm`.
void registerIndexPoolGPUPipeline();

} // namespace mlir::indexpool

#endif // INDEXPOOL_CONVERSION_PASSES_H
