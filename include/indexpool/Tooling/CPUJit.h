//===- CPUJit.h - lower a function to LLVM, JIT it, call it -----*- C++ -*-===//
//
// The CPU path of indexpool-run, shared with the differential fuzz target: a
// function (and what it references) is cloned, lowered with the
// indexpool-to-cpu pipeline, JIT-compiled by mlir::ExecutionEngine (O3,
// OpenMP from libomp) and called through its C interface:
//
//   _mlir_ciface_NAME(Results *, Desc0 *, Desc1 *, ...)
//
// where every DescI is a ranked memref descriptor {allocated, aligned,
// offset, sizes[rank], strides[rank]} (all 8-byte fields) and Results, only
// present when the function has results, is one descriptor per result laid
// out one after another. Results are allocated by the compiled code through
// the buffer cache (Runtime/BufferCache.h) and freed here.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_TOOLING_CPUJIT_H
#define INDEXPOOL_TOOLING_CPUJIT_H

#include "indexpool/Reference/HostTensor.h"
#include "indexpool/Tooling/CpuTargetMachine.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class TargetMachine;
} // namespace llvm

namespace mlir {
class DialectRegistry;
class ExecutionEngine;
namespace func {
class FuncOp;
} // namespace func
} // namespace mlir

namespace mlir::indexpool {

namespace ref = ::indexpool::ref;

/// Registers the translations to LLVM IR that the JIT needs (builtin, LLVM,
/// OpenMP) in the registry of the context that will hold the module.
void registerCPUJitTranslations(DialectRegistry &registry);

struct CPUJitOptions {
  /// The CPU target (Target/CpuTargets.h): "" or "host", the host's row;
  /// another row only when this host runs its code (else an error naming
  /// what the host lacks).
  std::string cpu;
  /// f32 lanes of the vectors the CPU loops over D use; 0: the CPU
  /// target's.
  int64_t vectorWidth = 0;
  /// i8 / i4 keys scored with the target's int8 dot, the query quantized
  /// per head (approximate: docs/design.md, CPU targets); opt-in.
  bool int8Query = false;
  /// A JSON tuning database (docs/design.md, "The tuning database"): the
  /// ops its CPU entries match (after fusion) use their entry's vector
  /// width instead of vectorWidth.
  std::string tuningDb;
  /// Run --indexpool-fuse first (on the copy that is compiled): chains the
  /// fused ops compute bit for bit the same become one kernel each, without
  /// their intermediates in memory.
  bool fuse = true;
  /// When set (a chip name), the GPU kernels of that chip run on CPU threads,
  /// one OpenMP thread per GPU thread (the GPU emulator); an unknown chip is
  /// an error.
  std::optional<std::string> emulatedGPU;
  /// With emulatedGPU: score and select's score on the tensor cores
  /// (--indexpool-to-gpu-kernels tensor-cores).
  bool tensorCores = true;
  /// The program that prints "TOOL: error: ..." and exits when the GPU
  /// emulator gets fewer OpenMP threads than a block has GPU threads.
  std::string toolName = "indexpool-run";
  /// Bounds-checked code: an access outside its buffer prints
  /// "TOOL: error: bounds check failed ..." and exits with 1 (tests).
  bool checkBounds = false;
  /// Arguments the compiled code may update in place (bufferization may
  /// write them): a paged cache's pages. The others are read-only.
  std::vector<unsigned> writableArguments;
  /// Apply the pass manager's command-line options (--mlir-print-ir-after,
  /// ...): tools register them; a library embedding the JIT has none.
  bool passManagerCLOptions = true;
};

/// The CPU target options.cpu names, LLVM's machine for it, and a copy of
/// `func`'s module, pruned to what `func` references, with `func` lowered
/// to the LLVM dialect by the indexpool-to-cpu pipeline for that target
/// (its vector width unless options.vectorWidth is set).
struct CpuLowering {
  const CpuTarget *cpu = nullptr;
  std::unique_ptr<llvm::TargetMachine> machine;
  OwningOpRef<ModuleOp> module;
};
/// Fills `lowering`; with `toRun` (the JIT), only for a target this host
/// runs and with a machine made for the JIT (makeCpuTargetMachine's
/// forJit), else one for objects. False with `error` (the pipeline's
/// diagnostics go to the context's handler).
bool lowerForCpu(func::FuncOp func, const CPUJitOptions &options, bool toRun,
                 CpuLowering &lowering, std::string &error);

/// `func` compiled ahead of time for the CPU target options.cpu (any row of
/// the table, another architecture's too): an ELF object file, or its
/// assembly text when `assembly`, into `out`. False with `error`.
bool emitCpuCode(func::FuncOp func, const CPUJitOptions &options,
                 bool assembly, std::string &out, std::string &error);

/// One function JIT-compiled for the CPU, and the buffers of its inputs.
class CPUJitFunction {
public:
  /// Lowers `func` (a clone of its module, pruned to what `func` references)
  /// and JIT-compiles it. On failure returns null and sets `error` to one
  /// line; the pipeline's own diagnostics go to the context's handler.
  static std::unique_ptr<CPUJitFunction>
  compile(func::FuncOp func, const CPUJitOptions &options, std::string &error);

  ~CPUJitFunction();
  CPUJitFunction(const CPUJitFunction &) = delete;
  CPUJitFunction &operator=(const CPUJitFunction &) = delete;

  /// Copies `inputs` (one per argument) into 64-byte aligned buffers in
  /// their storage format: what every later call() passes.
  void setInputs(ArrayRef<ref::HostTensor> inputs);

  /// Calls the function once. On success `results` (when not null) holds its
  /// results, checked against the shapes `predicted` by the reference
  /// evaluator; their buffers are freed either way.
  LogicalResult call(ArrayRef<ref::HostTensor> predicted,
                     std::vector<ref::HostTensor> *results, std::string &error);

  /// Calls the function on the caller's buffers: `data[i]` holds argument i
  /// (row-major, dense, storage format) of shape `shapes[i]`; nothing is
  /// copied. The results stay in the compiled code's buffers, readable
  /// through result() until the next call or releaseResults(). The shapes
  /// must have been validated (evaluateFunction, shapes only).
  LogicalResult callOnBuffers(ArrayRef<const void *> data,
                              ArrayRef<ArrayRef<int64_t>> shapes,
                              std::string &error);
  /// Result `i` of the last callOnBuffers: its aligned pointer, the offset
  /// of its first element, sizes and strides (offset and strides in
  /// elements).
  struct ResultView {
    const char *data;
    int64_t offset;
    ArrayRef<int64_t> shape;
    ArrayRef<int64_t> strides;
  };
  ResultView result(unsigned i) const;
  /// Frees the results of the last callOnBuffers (to the buffer cache).
  void releaseResults();
  /// OpenMP threads of the calls that follow (0: OpenMP's default).
  void setThreads(int threads);

private:
  class AlignedBuffer;
  LogicalResult invoke(ArrayRef<int64_t *> argumentDescriptors,
                       std::string &error);
  CPUJitFunction(std::unique_ptr<ExecutionEngine> engine, std::string name,
                 std::vector<int64_t> resultRanks);

  std::unique_ptr<ExecutionEngine> engine;
  /// "_mlir_ciface_NAME".
  std::string name;
  std::vector<int64_t> resultRanks;
  std::vector<std::unique_ptr<AlignedBuffer>> buffers;
  std::vector<std::vector<int64_t>> descriptors;
  /// callOnBuffers: the argument descriptors (reused from call to call),
  /// the results' descriptors and the result buffers to free.
  std::vector<std::vector<int64_t>> callerDescriptors;
  std::vector<int64_t> resultDescriptors;
  SmallVector<void *, 4> resultBuffers;
  int threads = 0;
};

} // namespace mlir::indexpool

#endif // INDEXPOOL_TOOLING_CPUJIT_H
