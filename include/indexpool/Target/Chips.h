//===- Chips.h - the per-chip facts of the NVIDIA GPUs we target -*- C++ -*-===//
//
// One entry per chip (docs/design.md): the facts the cost model of
// --indexpool-configure needs, each number with its source in Chips.cpp.
// Plain C++17, no LLVM or MLIR: the runtime-only build uses it too. At run
// time the CUDA runtime reads the real device attributes and prefers them;
// this table is what the compiler assumes when no device is present.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_TARGET_CHIPS_H
#define INDEXPOOL_TARGET_CHIPS_H

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace indexpool::target {

struct ChipInfo {
  /// The name used by `chip=` options and by LLVM's NVPTX `-mcpu`: "sm_90".
  std::string_view name;
  /// Compute capability as 10 * major + minor: 80, 86, 89, 90, 100, 120.
  int computeCapability;
  /// sm_90a-style targets: architecture-specific instructions (wgmma,
  /// setmaxnreg); the code runs only on exactly this compute capability.
  bool archSpecific;
  /// The part whose SM count, L2 and bandwidth the entry describes.
  std::string_view part;

  int smCount;
  int maxThreadsPerSM;
  int maxBlocksPerSM;
  int maxThreadsPerBlock;
  int registersPerSM;        ///< 32-bit registers
  int maxRegistersPerThread;
  int sharedMemPerSMKiB;     ///< as cudaDevAttrMaxSharedMemoryPerMultiprocessor
  int sharedMemPerBlockKiB;  ///< opt-in maximum (cudaFuncAttributeMaxDynamic...)
  int l2MiB;
  int dramGBps;              ///< peak DRAM bandwidth, GB/s (10^9 B/s)

  /// PTX ISA version to emit, 10 * major + minor (78 = PTX ISA 7.8, LLVM
  /// feature "+ptx78"): the lowest version that supports the chip and every
  /// instruction we emit for it, so that PTX also JIT-compiles on older
  /// drivers. Accepted by CUDA 13.0's ptxas and LLVM 22's NVPTX backend.
  int ptxVersion;
  /// cvt.rn.satfinite.e4m3x2.f32 (nvvm.convert.f32x2.to.f8x2): sm_89+.
  bool hasFp8Convert;
};

/// Limits every chip from sm_80 to sm_120 has (CUDA C++ Programming Guide,
/// "Features and Technical Specifications", compute capabilities table); a
/// device's own limits are checked at launch.
constexpr int64_t kWarpSize = 32;
constexpr int64_t kMaxThreadsPerBlock = 1024;
/// 32-bit registers per SM (and per block), and per thread at most.
constexpr int kRegistersPerSM = 64 * 1024;
constexpr int kMaxRegistersPerThread = 255;
/// Threads per block of a kernel that may take every register a thread can
/// have (ptxas is not told to cap them): whole warps of 65536 / 255, 256.
/// The cap of the score kernels and of the helper and row-loop kernels.
constexpr int64_t kMaxThreadsAtMaxRegisters =
    kRegistersPerSM / kMaxRegistersPerThread / kWarpSize * kWarpSize;
static_assert(kMaxThreadsAtMaxRegisters == 256);
/// Static shared memory per block (more needs the dynamic opt-in).
constexpr int64_t kMaxStaticSharedBytes = 48 * 1024;
/// Threads per block of a kernel whose op has no #indexpool.launch: the
/// default of every threads-per-block option (ConversionPasses.td's
/// default names it).
constexpr int64_t kDefaultThreadsPerBlock = 256;
constexpr std::array<int64_t, 3> kMaxGridDims = {2147483647, 65535, 65535};
constexpr std::array<int64_t, 3> kMaxBlockDims = {1024, 1024, 64};

/// The one rule for a threads-per-block option or launch attribute: whole
/// warps, at most kMaxThreadsPerBlock. "" when `threads` satisfies it, else
/// "threads-per-block must be a multiple of 32 in [32, 1024], got N".
std::string threadsPerBlockRule(int64_t threads);

/// The CPU loops' vector width: f32 lanes of the vectors over D, a power of
/// two from 1 to kMaxVectorWidth (past it LLVM's backend aborts at 65536
/// lanes and takes minutes long before). One rule for the pass option, the
/// API, the tools, the tuning database and the op attribute.
constexpr int64_t kMaxVectorWidth = 64;
constexpr bool isValidVectorWidth(int64_t lanes) {
  return lanes >= 1 && lanes <= kMaxVectorWidth && (lanes & (lanes - 1)) == 0;
}
/// "" when `lanes` is a valid width, else "vector width must be a power of
/// two from 1 to 64, got N".
std::string vectorWidthRule(int64_t lanes);

/// A chip name as nvcc and LLVM spell it, "sm_" + compute capability digits
/// (the last one the minor version) + an optional lower-case letter
/// ("sm_90a": architecture-specific), parsed whether or not the table has
/// the chip (a runtime compares it with the device's capability). False for
/// anything else.
bool parseChipName(std::string_view name, int &major, int &minor,
                   bool &archSpecific);

/// The entry named `name` ("sm_90"), or nullptr when there is none.
const ChipInfo *lookupChip(std::string_view name);

/// The one message for a chip the table does not have: "unknown chip
/// 'sm_75'; known chips: sm_80, sm_86, ..." (`extra` names other accepted
/// values first, such as "cpu").
std::string unknownChipMessage(std::string_view name,
                               std::string_view extra = "");

/// lookupChip, with `error` set to unknownChipMessage when there is none.
const ChipInfo *findChip(std::string_view name, std::string &error);

/// Every chip, in order of compute capability.
const std::vector<ChipInfo> &allChips();

/// "sm_80, sm_86, ..., sm_120", for error messages.
std::string knownChipNames();

/// Whether `version` (10 * major + minor, as ChipInfo::ptxVersion) is a PTX
/// ISA version from 7.0 on that LLVM 22's NVPTX backend emits and CUDA
/// 13.0's ptxas reads. LLVM ignores an unknown `+ptxNN` feature with a
/// warning and emits its default version instead.
bool isPtxVersion(int version);
/// The newest such version (9.0).
constexpr int kNewestPtxVersion = 90;

} // namespace indexpool::target

#endif // INDEXPOOL_TARGET_CHIPS_H
