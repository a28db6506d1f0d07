//===- Compiler.h - compile an IndexPool function ---------------*- C++ -*-===//
//
// The entry points of the embedding API: a function of a Module compiled for
// the CPU (JIT, callable at once) or for a GPU chip (PTX or cubin plus the
// JSON manifest that the MLIR-free runtime launches: docs/manifest.md).
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_API_COMPILER_H
#define INDEXPOOL_API_COMPILER_H

#include "indexpool/API/CpuFunction.h"
#include "indexpool/API/Module.h"
#include "indexpool/API/Status.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace indexpool {

struct CompileOptions {
  /// Chain fusion (--indexpool-fuse) before lowering: fused chains compute
  /// bit for bit the same as the ops written one by one.
  bool fuse = true;
  /// CPU: OpenMP threads per call (0: OpenMP's default, all cores).
  int threads = 0;
  /// CPU: the CPU target to compile for (a name of Target/CpuTargets.h's
  /// table, docs/design.md "CPU targets"); "" or "host": the host's row. A
  /// row this host cannot run is refused, naming what the host lacks.
  std::string cpu;
  /// CPU: f32 lanes of the vectors over D (a power of two), for the ops
  /// no CPU entry of tuningDB matches; 0: the CPU target's.
  int vectorWidth = 0;
  /// CPU: i8 and i4 keys scored with the target's int8 dot (vpdpbusd,
  /// sdot), the query quantized per head to int8: faster, approximate
  /// (docs/design.md, CPU targets, bounds the difference); ignored where the
  /// target has no int8 dot.
  bool int8Query = false;
  /// CPU: check every memory access of the compiled code against its
  /// buffer (slow; for tests). An access outside ends the process with a
  /// message, as indexpool-run --check-bounds does.
  bool checkBounds = false;
  /// A JSON tuning database (docs/design.md, "The tuning database"). GPU:
  /// its entries for the chip configure the ops, the chip's cost model the
  /// rest; empty: the cost model configures every op that has no
  /// #indexpool.launch. CPU: the ops its "cpu" entries match use the
  /// entry's vector width instead of vectorWidth.
  std::string tuningDB;
  /// GPU: "ptx" (JIT-compiled by the driver for newer devices) or "cubin".
  std::string binaryFormat = "ptx";
  /// GPU: threads per block of every kernel (a multiple of 32 up to 1024),
  /// and no op is configured for the chip; 0: the chip's launch
  /// configuration for ops without #indexpool.launch. Not with tuningDB.
  int threadsPerBlock = 0;
  /// GPU: the scores of score, select, refine and select_paged on the
  /// tensor cores (mma.sync; wgmma on sm_90a) where the shapes allow (a
  /// bf16 or FP8 query with FP8 or bf16 keys, H and D multiples of 16; an
  /// FP8 query is decoded to bf16 once where the chip has no native e4m3
  /// MMA); other shapes keep the CUDA-core kernel. On by default: the
  /// logits then differ from the CPU's in the last bits (summation order);
  /// false keeps the CUDA-core kernels, bit-identical to the CPU.
  bool tensorCores = true;
  /// GPU: also return the compiled module as MLIR text
  /// (GpuArtifact::moduleText, what indexpool-compile --emit=mlir writes).
  bool keepModuleText = false;
  /// CPU: arguments the compiled code may update in place (the pages of a
  /// paged cache): a result that is the updated argument is then written
  /// into the caller's buffer itself, with no copy and no allocation. The
  /// caller must not rely on such an argument's old contents after a call.
  std::vector<int> inPlaceArguments;
  /// Fixed shapes for some arguments (index, shape): the function is
  /// specialized to them first. Dynamic sizes left stay dynamic.
  std::vector<std::pair<int, std::vector<int64_t>>> inputShapes;
};

/// A row of the CPU target table (docs/design.md, "CPU targets"), and
/// whether this host runs its code.
struct CpuTargetInfo {
  std::string name, arch, description;
  int vectorWidth = 0;
  bool bf16Dot = false, int8Dot = false;
  /// A 64-byte lookup in a 128-byte table (vpermi2b): FP8 keys reach the
  /// bf16 dot as bytes (docs/design.md, "CPU targets").
  bool byteTable = false;
  bool host = false;     ///< the row "" and "host" name here
  bool runsHere = false; ///< else `whyNot` says what the host lacks
  std::string whyNot;
};
/// Every row, most capable first within each architecture.
std::vector<CpuTargetInfo> cpuTargets();

/// Compiles function `name` of `module` for the host CPU (or the CPU
/// target options.cpu).
std::unique_ptr<CpuFunction> compileForCpu(const Module &module,
                                           const std::string &name,
                                           const CompileOptions &options,
                                           Status &status);

/// Function `name` compiled ahead of time for the CPU target options.cpu
/// (any row of the table, another architecture's too; "": the host's):
/// an ELF object file (`emit` "obj") or its assembly ("asm") into `code`,
/// and the file name it goes by ("NAME.CPU.o" or ".s", NAME as in
/// GpuArtifact::binaryName). What indexpool-compile --target=cpu writes.
Status compileForCpuCode(const Module &module, const std::string &name,
                         const CompileOptions &options,
                         const std::string &emit, std::string &code,
                         std::string &fileName);

/// A function compiled for a GPU: what indexpool-compile writes to disk.
struct GpuArtifact {
  std::string chip;
  /// The file name the manifest refers to (e.g. "compress.sm_90.ptx"): the
  /// function's name with %XX for '/', '%', a leading '.' and other bytes
  /// a file name should not hold ("../x" -> "%2E.%2Fx"), so that it stays
  /// in the folder it is saved to and distinct names stay distinct.
  std::string binaryName;
  /// PTX text or cubin bytes.
  std::string binary;
  /// The manifest (JSON text).
  std::string manifest;
  /// The compiled module (MLIR text); only with CompileOptions::keepModuleText.
  std::string moduleText;
};

/// Compiles function `name` of `module` for `chip` ("sm_80" ... "sm_120").
Status compileForGpu(const Module &module, const std::string &name,
                     const std::string &chip, const CompileOptions &options,
                     GpuArtifact &artifact);

/// Writes DIRECTORY/binaryName and DIRECTORY/STEM.json (the manifest; STEM
/// is binaryName without its extension), as indexpool-compile does, and
/// creates DIRECTORY first when it does not exist; indexpool-launch runs
/// them. The paths written are returned in `binaryPath` and `manifestPath`
/// when given.
Status saveGpuArtifact(const GpuArtifact &artifact,
                       const std::string &directory,
                       std::string *binaryPath = nullptr,
                       std::string *manifestPath = nullptr);

} // namespace indexpool

#endif // INDEXPOOL_API_COMPILER_H
