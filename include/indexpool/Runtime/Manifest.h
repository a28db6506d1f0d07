//===- Manifest.h - the kernels of a function, for a runtime ----*- C++ -*-===//
//
// The JSON manifest (format_version 3, docs/manifest.md) that describes one
// compiled function for a runtime outside the compiler: the binary (cubin or
// PTX), every buffer (inputs, outputs, temporaries, and the reference's
// intermediates), each kernel's parameter signature, the kernel launches in
// order with their parameters, and
// what the function computes as a list of indexpool ops, so that the float64
// reference can check the results and random inputs can be drawn by use.
//
// Loading validates everything that can be checked without a GPU: every id
// defined once, element types and shapes, outputs in place of an input of
// their type and shape, parameters that name buffers with device memory,
// launches whose parameters match their kernel's signature
// (count, kinds, buffers at least as large as the kernel indexes), computes
// whose operands are defined before use, whose ops,
// operand names and properties exist, and whose result shapes and types are
// what the reference computes from their operands. Errors are one line,
// "FILE:LINE:COL: FIELD: what", e.g.
//   "m.json:7:40: buffers[2].type: unknown element type 'f64' (expected f32,
//    f16, bf16, f8E4M3FN, i8 or i32)".
// A manifest with `sizes` (ManifestSizes.h) is symbolic: loading checks
// what does not need the sizes' values, and bindSizes, given the inputs'
// shapes and the device's SM count, evaluates them and runs the same
// validation on the result. A manifest without sizes is bound as loaded.
// MLIR-free; no exceptions.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_RUNTIME_MANIFEST_H
#define INDEXPOOL_RUNTIME_MANIFEST_H

#include "indexpool/Reference/Numerics.h"
#include "indexpool/Runtime/ManifestSizes.h"
#include "indexpool/Target/Chips.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace indexpool::runtime {

namespace json {
struct Value;
} // namespace json

/// The manifest format this runtime reads and indexpool-compile writes (3:
/// sizes known at launch), and the oldest it still reads (2: the same
/// without `sizes`; version 1 manifests had no kernel signatures, and a
/// launch that passed too few parameters crashed inside the driver).
constexpr int64_t kManifestFormatVersion = 3;
constexpr int64_t kOldestManifestFormatVersion = 2;

/// The most elements one buffer may have (2^40: far beyond any GPU's memory
/// for these element types; it keeps byte counts from overflowing).
constexpr int64_t kMaxBufferElements = int64_t(1) << 40;

/// A size of a `values` entry written as null: whatever its compute gives
/// for its operands' shapes (the writer knows it only as a dynamic size of
/// an intermediate); the reader fills it in from the compute.
constexpr int64_t kInferredSize = -1;

/// The launch limits of every chip (Target/Chips.h): the reader rejects
/// launches beyond them and indexpool-compile refuses to write them.
using target::kMaxBlockDims;
using target::kMaxGridDims;
using target::kMaxThreadsPerBlock;

enum class BufferRole {
  /// Device memory the runtime fills from an input (`index`: its position).
  Input,
  /// Device memory the runtime reads back as a result (`index`: position).
  Output,
  /// Device memory the kernels use for themselves.
  Temporary,
  /// A value of the reference computation only (e.g. the pooled keys inside
  /// a fused kernel): no device memory.
  Intermediate,
};

/// "input", "output", "temporary", "intermediate".
const char *bufferRoleName(BufferRole role);

struct Buffer {
  int64_t id = 0;
  BufferRole role = BufferRole::Temporary;
  /// Input and output buffers: the position among the inputs or outputs
  /// (0, 1, ...); -1 for the others.
  int64_t index = -1;
  ref::ElementType type = ref::ElementType::F32;
  /// The sizes; in a manifest that needsBinding(), 0 where `dims` names a
  /// size.
  std::vector<int64_t> shape;
  /// The shape as written (integers and sizes); empty in a Buffer built in
  /// code (then `shape` is all there is).
  std::vector<SizeOperand> dims;
  /// Outputs only: the id of the input (same type and shape) whose device
  /// memory the kernels update in place and the runtime reads this output
  /// from (`in_place_of`, e.g. a paged op's page pool); -1 for a buffer of
  /// its own.
  int64_t inPlaceOf = -1;

  int64_t numElements() const;
  /// Storage bytes: bf16/f16 2 per element, f8E4M3FN/i8 1, f32/i32 4.
  int64_t sizeInBytes() const;
  /// Intermediates have no device memory, and an output in place of an
  /// input has none of its own (it lives in the input's).
  bool hasDeviceMemory() const {
    return role != BufferRole::Intermediate && inPlaceOf < 0;
  }
};

/// One kernel parameter, passed by value to cuLaunchKernel.
struct LaunchParam {
  enum class Kind { Buffer, I32, I64, F32 };
  Kind kind = Kind::I64;
  /// Buffer: the id of a buffer with device memory (the parameter is its
  /// 8-byte device pointer).
  int64_t buffer = -1;
  /// I32, I64: the value (0 for a size before binding).
  int64_t integer = 0;
  /// I32, I64: the value as written (an integer or a size).
  SizeOperand operand;
  /// F32: the value (the JSON number rounded to f32).
  float f32 = 0;
};

/// The name of a parameter kind as the manifest spells it: "buffer", "i32",
/// "i64", "f32".
const char *paramKindName(LaunchParam::Kind kind);
/// Bytes of a parameter of `kind` in the kernel's parameter buffer: 8 for a
/// buffer (a device pointer) and i64, 4 for i32 and f32.
int64_t paramKindBytes(LaunchParam::Kind kind);

/// One parameter of a kernel's signature.
struct KernelParam {
  LaunchParam::Kind kind = LaunchParam::Kind::I64;
  /// Buffers: the bytes the kernel may access through the pointer (its
  /// memref's size); -1 when the manifest does not say, or names a size
  /// that is not bound yet.
  int64_t bytes = -1;
  /// `bytes` as written (an integer or a size); -1 when absent.
  SizeOperand bytesOperand = SizeOperand::literal(-1);
  /// Buffers: the alignment the pointer needs (a power of two: 16 for a
  /// kernel that reads it with 16-byte vector loads); 0 when not stated.
  int64_t align = 0;
};

/// A kernel of the binary and the parameters it takes, in order.
struct Kernel {
  std::string name;
  std::vector<KernelParam> params;
};

/// "" when `pointer` satisfies parameter `index` of `kernel` (its `align`),
/// else the one line that says what the kernel needs.
std::string checkPointerAlignment(const Kernel &kernel, size_t index,
                                  uint64_t pointer);

struct Launch {
  std::string kernel;
  /// 1 where `gridOperands` names a size, before binding.
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::array<SizeOperand, 3> gridOperands{
      SizeOperand::literal(1), SizeOperand::literal(1),
      SizeOperand::literal(1)};
  std::array<uint32_t, 3> block{1, 1, 1};
  /// Dynamic shared memory per block.
  uint32_t sharedMemoryBytes = 0;
  std::vector<LaunchParam> params;
};

/// One indexpool op of the reference computation.
struct Compute {
  /// The op name without "indexpool.": pool, hadamard, quantize, dequantize,
  /// residual, reconstruct, score, topk, expand, compress, select, refine,
  /// compress_paged, select_paged, append_paged.
  std::string op;
  /// Operand name -> id, in the op's operand order (docs/IndexPoolOps.md and
  /// dialect/IndexPoolOps.td: keys, scores, bias, ...); absent optional
  /// operands are left out.
  std::vector<std::pair<std::string, int64_t>> operands;
  /// Ids of the results, in the op's result order.
  std::vector<int64_t> results;
  /// Properties, with the dialect's defaults where the manifest has none.
  /// pool, residual, reconstruct, expand, compress, select and the paged
  /// ops: pool_size; topk, select, refine, select_paged: k.
  int64_t poolSize = 0;
  int64_t k = 0;
  /// temperature and min_absmax are f32 properties in the dialect: the
  /// manifest's numbers are rounded to f32 (as is the default 1e-4).
  double temperature = 1.0;
  double minAbsmax = double(1e-4f);
  bool pow2Scale = false;
  bool rotate = false;
  /// The paged ops' page layout (docs/serving-layout.md): page_entries,
  /// codes (a type property, written as its name) and scales_first.
  int64_t pageEntries = 64;
  ref::ElementType codes = ref::ElementType::F8E4M3FN;
  bool scalesFirst = false;

  /// The id of operand `name`, or -1 when absent.
  int64_t operand(std::string_view name) const;
};

enum class BinaryFormat { Cubin, Ptx };

struct Manifest {
  int64_t formatVersion = kManifestFormatVersion;
  /// The sizes (format_version 3), in order; and, once bound, their values.
  std::vector<SizeExpr> sizes;
  std::vector<int64_t> sizeValues;
  /// Bound: how many launches were dropped for a grid with a 0 (an empty
  /// op: CUDA rejects zero grids).
  size_t skippedLaunches = 0;
  /// The chip the binary was compiled for, e.g. "sm_90" or "sm_90a".
  std::string chip;
  /// The compiled function's name (without '@').
  std::string function;
  /// As written: relative to the manifest's folder (or absolute).
  std::string binaryPath;
  BinaryFormat binaryFormat = BinaryFormat::Cubin;
  std::vector<Buffer> buffers;
  /// The signatures of the launched kernels.
  std::vector<Kernel> kernels;
  std::vector<Launch> launches;
  std::vector<Compute> computes;
  /// The folder of the manifest file; "" when parsed from a string.
  std::string directory;
  /// The manifest's name in messages (its path).
  std::string name;
  /// The parsed JSON, which bindSizes validates again with the sizes'
  /// values (null in a Manifest built in code).
  std::shared_ptr<const json::Value> source;

  /// Whether sizes are still to be evaluated (bindSizes) before the
  /// buffers, launches and computes hold real values.
  bool needsBinding() const { return sizeValues.size() != sizes.size(); }
  /// Whether a size is the device's SM count.
  bool usesSmCount() const;

  /// The buffer with `id`, or nullptr.
  const Buffer *findBuffer(int64_t id) const;
  /// The kernel named `name`, or nullptr.
  const Kernel *findKernel(std::string_view name) const;
  /// Input (output) buffers ordered by index.
  std::vector<const Buffer *> inputs() const;
  std::vector<const Buffer *> outputs() const;
  /// The compute that has `id` among its results (and the position there),
  /// or nullptr for inputs and ids no compute defines.
  const Compute *definingCompute(int64_t id,
                                 size_t *resultIndex = nullptr) const;
  /// binaryPath resolved against `directory`.
  std::string resolvedBinaryPath() const;
};

/// Checks `launch`'s parameters against its kernel's signature in
/// `manifest`: the kernel is declared, the count and each kind match, each
/// buffer names a buffer with device memory (never an intermediate nor an
/// output in place of an input: the launch names the input), at least as
/// large as the kernel
/// accesses (once the manifest is bound). Returns "" when they do, else
/// the problem in one line
/// (e.g. "kernel 'k' takes 4 parameters, the launch passes 3"), with `param`
/// set to the parameter at fault (-1 for the launch as a whole). Loading a
/// manifest applies it to every launch; the Launcher again before loading
/// anything onto the device (a Manifest may also be built in code).
std::string checkLaunchParams(const Manifest &manifest, const Launch &launch,
                              int64_t &param);

/// Parses and validates `text`; `name` (the path) starts every message and
/// `directory` resolves the binary. On failure returns false and sets
/// `error` to one line.
bool parseManifest(std::string_view text, const std::string &name,
                   const std::string &directory, Manifest &out,
                   std::string &error);

/// Reads `path` (at most kMaxJsonBytes), then parseManifest. Errors also
/// cover a missing, unreadable or too large file.
bool loadManifest(const std::string &path, Manifest &out, std::string &error);

/// Instantiates `symbolic` for inputs of `inputShapes` (one per input, in
/// index order) on a device of `smCount` multiprocessors: checks each shape
/// against its input's (the rank, and every integer size), evaluates the
/// sizes, substitutes them everywhere, drops launches whose grid has a 0,
/// and validates the result as parseManifest validates a manifest without
/// sizes (grid limits, 2^40 elements, i32 ranges, kernel signatures, the
/// computes' shapes, an in-place output's shape equal to its input's). A
/// manifest without sizes binds to itself. On failure
/// returns false with `error` one line, e.g. "m.json:4:5: sizes[3]: mul
/// overflows: 4611686018427387904 * 4".
bool bindSizes(const Manifest &symbolic,
               const std::vector<std::vector<int64_t>> &inputShapes,
               int64_t smCount, Manifest &concrete, std::string &error);

/// "[?, 64]": a buffer's shape as written, "?" for each size.
std::string symbolicShapeString(const Buffer &buffer);

/// Reads the manifest's binary file into `image` (PTX: with a terminating
/// NUL, as cuModuleLoadData wants). Fails with one line naming the file when
/// it is missing, unreadable, empty or larger than kMaxKernelBinaryBytes,
/// or, for a cubin, not an ELF file.
bool readBinary(const Manifest &manifest, std::string &image,
                std::string &error);

/// "tensor<16384x128xf8E4M3FN>" for a buffer (MLIR's spelling, as
/// indexpool-run prints result types).
std::string tensorTypeString(const std::vector<int64_t> &shape,
                             ref::ElementType type);

} // namespace indexpool::runtime

#endif // INDEXPOOL_RUNTIME_MANIFEST_H
