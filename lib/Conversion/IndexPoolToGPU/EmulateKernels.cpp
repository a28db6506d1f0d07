//===- EmulateKernels.cpp - gpu.launch on CPU threads ---------------------===//
//
// The GPU kernels cannot run on a machine without a GPU, but their IR can:
// each block becomes an OpenMP team with one thread per GPU thread, so the
// kernels' indexing, shuffles, barriers and atomics are checked against the
// float64 reference like every CPU result (indexpool-run
// --device=gpu-emulator). Slow (hundreds of OS threads per block), and only
// for tests.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Conversion/Passes.h"
#include "indexpool/Target/Chips.h"

#include "Common/Emitter.h"
#include "GPU/DeviceSmCount.h"
#include "GPU/KernelSizeParams.h"
#include "GPU/LaunchLimits.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Analysis/SliceAnalysis.h"

namespace mlir::indexpool {
#define GEN_PASS_DEF_INDEXPOOLEMULATEGPUKERNELS
#include "indexpool/Dialect/ConversionPasses.h.inc"
} // namespace mlir::indexpool

using namespace mlir;
using ::indexpool::target::kWarpSize;

static constexpr StringLiteral kThreadNum = "omp_get_thread_num";
static constexpr StringLiteral kNumThreads = "omp_get_num_threads";
static constexpr StringLiteral kMismatch = "indexpool_gpu_emulator_team_mismatch";
// Stands for gpu.barrier between the two runs (a call is something the
// buffer deallocation pipeline understands); never called.
static constexpr StringLiteral kBarrier = "indexpool_gpu_emulator_barrier";

namespace {

/// A team barrier, as a call of kBarrier until the second run.
static void teamBarrier(OpBuilder &b, Location loc) {
  func::CallOp::create(b, loc, kBarrier, TypeRange{}, ValueRange{});
}

/// The emulation of one gpu.launch's block: the team's thread id, the
/// shared exchange array of its shuffles and, when the block has MMAs, the
/// shared array their fragments go through (kMmaSlots f32 per thread).
struct Team {
  Value thread;
  Value exchange;
  Value mmaFragments;
};

/// An m16n8k16 lane's A (8) and B (4) elements, as f32, in the scratch.
static constexpr int64_t kMmaSlots = 24;
/// The FP8 MMA, called as an LLVM intrinsic (nvvm.mma.sync has no e4m3 in
/// MLIR 22).
static constexpr StringLiteral kFp8MmaIntrinsic =
    "llvm.nvvm.mma.m16n8k32.row.col.f32.e4m3.e4m3.f32";

/// gpu.shuffle xor through the team's exchange array.
static LogicalResult emulateShuffle(gpu::ShuffleOp shuffle, const Team &team) {
  ImplicitLocOpBuilder b(shuffle.getLoc(), shuffle);
  Type type = shuffle.getValue().getType();
  std::optional<int64_t> offset = getConstantIntValue(shuffle.getOffset());
  std::optional<int64_t> width = getConstantIntValue(shuffle.getWidth());
  if (shuffle.getMode() != gpu::ShuffleMode::XOR || !offset || !width ||
      *width != kWarpSize || *offset < 0 || *offset >= kWarpSize ||
      !(type.isF32() || type.isInteger(32)))
    return shuffle.emitOpError(
        "the GPU emulator handles only xor shuffles of 32-bit values by a "
        "constant offset < 32 over 32 lanes");
  Type i32 = b.getI32Type();
  Value bits = type.isF32() ? arith::BitcastOp::create(b, i32, shuffle.getValue())
                            : shuffle.getValue();
  memref::StoreOp::create(b, bits, team.exchange, ValueRange{team.thread});
  teamBarrier(b, b.getLoc());
  Value partner = arith::XOrIOp::create(
      b, team.thread, arith::ConstantIndexOp::create(b, *offset));
  Value got = memref::LoadOp::create(b, team.exchange, ValueRange{partner});
  // Nobody overwrites the array before everyone has read it.
  teamBarrier(b, b.getLoc());
  Value result = type.isF32() ? arith::BitcastOp::create(b, type, got) : got;
  Value valid = arith::ConstantIntOp::create(b, 1, 1);
  shuffle.replaceAllUsesWith(ValueRange{result, valid});
  shuffle.erase();
  return success();
}

/// match.any.sync over the whole warp: each lane publishes its value, then
/// gathers the lanes of its warp with the same one.
static LogicalResult emulateMatch(NVVM::MatchSyncOp match, const Team &team) {
  ImplicitLocOpBuilder b(match.getLoc(), match);
  std::optional<int64_t> mask = getConstantIntValue(match.getThreadMask());
  Type i32 = b.getI32Type();
  if (match.getKind() != NVVM::MatchSyncKind::any || !mask ||
      static_cast<int32_t>(*mask) != -1 || match.getVal().getType() != i32)
    return match.emitOpError("the GPU emulator handles only match.any.sync "
                             "of i32 over the full warp");
  memref::StoreOp::create(b, match.getVal(), team.exchange,
                          ValueRange{team.thread});
  teamBarrier(b, b.getLoc());
  Value warpSize = arith::ConstantIndexOp::create(b, kWarpSize);
  Value first = arith::MulIOp::create(
      b, arith::DivUIOp::create(b, team.thread, warpSize), warpSize);
  Value zero32 = arith::ConstantIntOp::create(b, 0, 32);
  auto lanes = scf::ForOp::create(
      b, arith::ConstantIndexOp::create(b, 0), warpSize,
      arith::ConstantIndexOp::create(b, 1), ValueRange{zero32},
      [&](OpBuilder &, Location, Value j, ValueRange acc) {
        Value other = memref::LoadOp::create(
            b, team.exchange, ValueRange{arith::AddIOp::create(b, first, j)});
        Value same = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, other,
                                           match.getVal());
        Value bit = arith::ShLIOp::create(
            b, arith::ConstantIntOp::create(b, 1, 32),
            arith::IndexCastUIOp::create(b, i32, j));
        Value next = arith::OrIOp::create(
            b, acc[0], arith::SelectOp::create(b, same, bit, zero32));
        scf::YieldOp::create(b, ValueRange{next});
      });
  teamBarrier(b, b.getLoc());
  match.replaceAllUsesWith(lanes.getResult(0));
  match.erase();
  return success();
}

/// The bf16 in the low (`high` false) or high half of a packed 32-bit
/// register as the f32 of the same value (exact: a bf16's bits are the top
/// half of its f32's).
static Value unpackBf16(ImplicitLocOpBuilder &b, Value packed, bool high) {
  Value bits =
      high ? arith::AndIOp::create(
                 b, packed,
                 arith::ConstantIntOp::create(b, b.getI32Type(),
                                              static_cast<int32_t>(0xFFFF0000)))
                 .getResult()
           : arith::ShLIOp::create(b, packed,
                                   arith::ConstantIntOp::create(b, 16, 32))
                 .getResult();
  return arith::BitcastOp::create(b, b.getF32Type(), bits);
}

/// Whether `op` is the one MMA the emulator knows: m16n8k16, row-major bf16
/// A (4 x i32), column-major bf16 B (2 x i32), f32 C and D (4 each).
static bool isBf16M16N8K16(NVVM::MmaOp op) {
  NVVM::MMAShapeAttr shape = op.getShape();
  Builder b(op.getContext());
  auto all = [](ValueRange values, Type type, size_t n) {
    return values.size() == n &&
           llvm::all_of(values, [&](Value v) { return v.getType() == type; });
  };
  auto result = dyn_cast<LLVM::LLVMStructType>(op.getRes().getType());
  return shape.getM() == 16 && shape.getN() == 8 && shape.getK() == 16 &&
         op.getMultiplicandAPtxType() == NVVM::MMATypes::bf16 &&
         op.getMultiplicandBPtxType() == NVVM::MMATypes::bf16 &&
         op.getLayoutA() == NVVM::MMALayout::row &&
         op.getLayoutB() == NVVM::MMALayout::col && !op.getB1Op() &&
         !op.getIntOverflowBehavior() &&
         all(op.getOperandA(), b.getI32Type(), 4) &&
         all(op.getOperandB(), b.getI32Type(), 2) &&
         all(op.getOperandC(), b.getF32Type(), 4) && result &&
         result.getBody().size() == 4 &&
         llvm::all_of(result.getBody(), [](Type t) { return t.isF32(); });
}

/// Element `i` (0 = lowest bits) of a packed 32-bit register of `perRegister`
/// bf16 (2) or e4m3 (4) values, as the f32 of the same value (exact).
static Value unpackElement(ImplicitLocOpBuilder &b, Value packed,
                           int64_t perRegister, int64_t i) {
  if (perRegister == 2)
    return unpackBf16(b, packed, i == 1);
  Value byte = arith::TruncIOp::create(
      b, b.getI8Type(),
      arith::ShRUIOp::create(b, packed,
                             arith::ConstantIntOp::create(b, 8 * i, 32)));
  mlir::indexpool::loops::Emitter e(b, 1, /*stackScopes=*/false);
  return e.toF32(
      arith::BitcastOp::create(b, b.getType<Float8E4M3FNType>(), byte));
}

/// mma.sync.aligned.m16n8k{8E}.row.col.f32 on bf16 (E = 2 per register,
/// k = 16) or e4m3 (E = 4, k = 32) with the PTX ISA's fragment layouts
/// (groupID g = lane / 4, t = lane % 4; element 0 of a register in its
/// lowest bits): A (16 x 8E), 4 registers: register r holds row
/// g + 8 (r % 2), columns E t + 4E (r / 2) + [0, E); B (8E x 8), 2
/// registers: register r holds rows (k) E t + 4E r + [0, E), column g;
/// C, D (16 x 8), element i of 4: row g + 8 (i / 2), column 2t + i % 2.
/// Each lane publishes its A and B elements as f32, the team waits, each
/// lane computes its four D elements from the whole warp's A and B, the
/// team waits again (nobody overwrites fragments still being read).
/// D = C + sum over k of A * B, f32 products (exact for bf16 and e4m3) and
/// f32 sums in k order: the hardware's internal summation order is not
/// specified, so this is one valid order, not necessarily the chip's.
static Value emulateMmaTile(ImplicitLocOpBuilder &b, const Team &team,
                            ValueRange aRegs, ValueRange bRegs,
                            ValueRange c, Type resultType, int64_t E) {
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, v);
  };
  const int64_t K = 8 * E, bFirst = 4 * E;
  Value slots = index(kMmaSlots);
  Value mine = arith::MulIOp::create(b, team.thread, slots);
  auto publish = [&](ValueRange registers, int64_t first) {
    for (auto [r, packed] : llvm::enumerate(registers))
      for (int64_t i = 0; i < E; ++i)
        memref::StoreOp::create(
            b, unpackElement(b, packed, E, i), team.mmaFragments,
            ValueRange{arith::AddIOp::create(
                b, mine, index(first + E * static_cast<int64_t>(r) + i))});
  };
  publish(aRegs, 0);
  publish(bRegs, bFirst);
  teamBarrier(b, b.getLoc());

  Value warpSize = index(kWarpSize);
  Value lane = arith::RemUIOp::create(b, team.thread, warpSize);
  Value warpFirst = arith::SubIOp::create(b, team.thread, lane);
  Value g = arith::DivUIOp::create(b, lane, index(4));
  Value t = arith::RemUIOp::create(b, lane, index(4));
  // The f32 of slot `slot` of the warp's lane `l` (both index values).
  auto fragment = [&](Value l, Value slot) -> Value {
    Value at = arith::AddIOp::create(
        b, arith::MulIOp::create(b, arith::AddIOp::create(b, warpFirst, l),
                                 slots),
        slot);
    return memref::LoadOp::create(b, team.mmaFragments, ValueRange{at});
  };
  Value result = LLVM::PoisonOp::create(b, resultType);
  for (int64_t i = 0; i < 4; ++i) {
    // D[row, col]: row = g + 8 (i / 2), col = 2t + i % 2.
    int64_t rowHalf = i / 2, colOdd = i % 2;
    Value col = arith::AddIOp::create(
        b, arith::MulIOp::create(b, t, index(2)), index(colOdd));
    auto loop = scf::ForOp::create(
        b, index(0), index(K), index(1), ValueRange{c[i]},
        [&](OpBuilder &, Location, Value k, ValueRange acc) {
          // Column k of A and row k of B are in lanes of t = (k % 4E) / E,
          // element k % E of register half k / 4E.
          Value kLow = arith::RemUIOp::create(b, k, index(4 * E));
          Value kHigh = arith::DivUIOp::create(b, k, index(4 * E));
          Value element = arith::RemUIOp::create(b, k, index(E));
          Value laneT = arith::DivUIOp::create(b, kLow, index(E));
          // A[row, k]: lane 4 g + t, register row / 8 + 2 (k / 4E).
          Value aLane = arith::AddIOp::create(
              b, arith::MulIOp::create(b, g, index(4)), laneT);
          Value aSlot = arith::AddIOp::create(
              b,
              arith::MulIOp::create(
                  b,
                  arith::AddIOp::create(
                      b, index(rowHalf),
                      arith::MulIOp::create(b, kHigh, index(2))),
                  index(E)),
              element);
          // B[k, col]: lane 4 col + t, register k / 4E.
          Value bLane = arith::AddIOp::create(
              b, arith::MulIOp::create(b, col, index(4)), laneT);
          Value bSlot = arith::AddIOp::create(
              b,
              arith::AddIOp::create(b, index(bFirst),
                                    arith::MulIOp::create(b, kHigh, index(E))),
              element);
          Value product = arith::MulFOp::create(b, fragment(aLane, aSlot),
                                                fragment(bLane, bSlot));
          scf::YieldOp::create(
              b, ValueRange{arith::AddFOp::create(b, acc[0], product)});
        });
    result = LLVM::InsertValueOp::create(b, result, loop.getResult(0), i);
  }
  teamBarrier(b, b.getLoc());
  return result;
}

static LogicalResult emulateMma(NVVM::MmaOp op, const Team &team) {
  if (!isBf16M16N8K16(op))
    return op.emitOpError("the GPU emulator handles only m16n8k16 MMAs of "
                          "row-major bf16 A (4 x i32) and column-major bf16 "
                          "B (2 x i32) with f32 accumulators (4 x f32)");
  ImplicitLocOpBuilder b(op.getLoc(), op);
  Value result = emulateMmaTile(b, team, op.getOperandA(), op.getOperandB(),
                                op.getOperandC(), op.getRes().getType(), 2);
  op.getRes().replaceAllUsesWith(result);
  op.erase();
  return success();
}

/// Whether `op` is the FP8 MMA: 4 + 2 i32 registers of e4m3, 4 f32
/// accumulators, a struct of 4 f32.
static bool isFp8Mma(LLVM::CallIntrinsicOp op) {
  if (op.getIntrin() != kFp8MmaIntrinsic)
    return false;
  auto result = op.getNumResults() == 1
                    ? dyn_cast<LLVM::LLVMStructType>(op.getResult(0).getType())
                    : LLVM::LLVMStructType();
  auto args = op.getArgs();
  return result && result.getBody().size() == 4 &&
         llvm::all_of(result.getBody(), [](Type t) { return t.isF32(); }) &&
         args.size() == 10 &&
         llvm::all_of(args.take_front(6),
                      [](Value v) { return v.getType().isInteger(32); }) &&
         llvm::all_of(args.drop_front(6),
                      [](Value v) { return v.getType().isF32(); });
}

static LogicalResult emulateFp8Mma(LLVM::CallIntrinsicOp op,
                                   const Team &team) {
  if (!isFp8Mma(op))
    return op.emitOpError("the GPU emulator handles only the intrinsic ")
           << kFp8MmaIntrinsic
           << " with 4 + 2 i32 registers and 4 f32 accumulators";
  ImplicitLocOpBuilder b(op.getLoc(), op);
  auto args = op.getArgs();
  Value result =
      emulateMmaTile(b, team, args.take_front(4), args.slice(4, 2),
                     args.drop_front(6), op.getResult(0).getType(), 4);
  op.getResult(0).replaceAllUsesWith(result);
  op.erase();
  return success();
}

/// cvt.rn.satfinite.e4m3x2.f32 as the software encoder: element 0 of the
/// pair is `b`'s code, element 1 `a`'s (the order of the instruction).
static LogicalResult emulateFp8Convert(NVVM::ConvertF32x2ToF8x2Op op) {
  if (!isa<Float8E4M3FNType>(op.getDstTy()) ||
      op.getRnd() != NVVM::FPRoundingMode::RN ||
      op.getSat() != NVVM::SaturationMode::SATFINITE || op.getRelu() ||
      !isa<VectorType>(op.getDst().getType()))
    return op.emitOpError("the GPU emulator handles only rn satfinite e4m3 "
                          "conversions to vector<2xi8>");
  ImplicitLocOpBuilder b(op.getLoc(), op);
  mlir::indexpool::loops::Emitter e(b, 2, /*stackScopes=*/false);
  auto pair = VectorType::get({2}, b.getF32Type());
  Value v = vector::FromElementsOp::create(b, pair, ValueRange{op.getB(), op.getA()});
  Value codes = e.fromF32(v, b.getType<Float8E4M3FNType>());
  Value bytes = arith::BitcastOp::create(b, op.getDst().getType(), codes);
  op.replaceAllUsesWith(bytes);
  op.erase();
  return success();
}

/// cvt.rn.f16x2.e4m3x2 (exact: every e4m3 value is an f16 value): the
/// software decoder, then f16; element i of the result is code i's value.
static LogicalResult emulateFp8ToF16(NVVM::ConvertF8x2ToF16x2Op op) {
  if (!isa<Float8E4M3FNType>(op.getSrcType()) || op.getRelu())
    return op.emitOpError("the GPU emulator handles only e4m3 codes "
                          "without relu");
  ImplicitLocOpBuilder b(op.getLoc(), op);
  mlir::indexpool::loops::Emitter e(b, 2, /*stackScopes=*/false);
  Value codes = arith::BitcastOp::create(
      b, VectorType::get({2}, b.getType<Float8E4M3FNType>()), op.getSrc());
  Value halves = e.fromF32(e.toF32(codes), b.getF16Type());
  op.replaceAllUsesWith(halves);
  op.erase();
  return success();
}

static func::FuncOp declare(ModuleOp module, StringRef name,
                            FunctionType type) {
  if (auto f = module.lookupSymbol<func::FuncOp>(name))
    return f;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto f = func::FuncOp::create(b, module.getLoc(), name, type);
  f.setPrivate();
  return f;
}

/// A wgmma operand in shared memory: the team's buffer the descriptor was
/// built from (the one memref.extract_aligned_pointer_as_index it depends
/// on), with the descriptor's byte offset, leading (along K) and stride
/// (between 8-row groups) byte offsets as index values.
struct SharedMatrix {
  Value buffer, offset, leading, stride;
};

static FailureOr<SharedMatrix> sharedMatrix(ImplicitLocOpBuilder &b,
                                            NVVM::WgmmaMmaAsyncOp op,
                                            Value descriptor) {
  SetVector<Operation *> slice;
  BackwardSliceOptions options;
  options.omitBlockArguments = true;
  (void)getBackwardSlice(descriptor, &slice, options);
  memref::ExtractAlignedPointerAsIndexOp base;
  int bases = 0;
  for (Operation *op : slice)
    if (auto extract = dyn_cast<memref::ExtractAlignedPointerAsIndexOp>(op)) {
      base = extract;
      ++bases;
    }
  auto type = bases == 1 ? dyn_cast<MemRefType>(base.getSource().getType())
                         : MemRefType();
  if (!type || type.getRank() != 1 || !type.getElementType().isInteger(8))
    return op.emitOpError("the GPU emulator reads wgmma operands only from "
                          "a descriptor built from one 1-d i8 shared buffer");
  Type i64 = b.getI64Type();
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, v, 64);
  };
  auto field = [&](int64_t shift) -> Value {
    Value bits = shift ? arith::ShRUIOp::create(b, descriptor, c(shift))
                       : descriptor;
    return arith::AndIOp::create(b, bits, c(0x3FFF));
  };
  auto bytes = [&](Value sixteens) -> Value {
    return arith::IndexCastUIOp::create(
        b, b.getIndexType(), arith::ShLIOp::create(b, sixteens, c(4)));
  };
  // Only the address's low 18 bits are in the descriptor: the offset from
  // the buffer's own (16-byte aligned) address, modulo 2^18.
  Value address =
      arith::IndexCastUIOp::create(b, i64, base.getAlignedPointer());
  Value baseField = arith::AndIOp::create(
      b, arith::ShRUIOp::create(b, address, c(4)), c(0x3FFF));
  Value offset = arith::AndIOp::create(
      b, arith::SubIOp::create(b, field(0), baseField), c(0x3FFF));
  return SharedMatrix{base.getSource(), bytes(offset), bytes(field(16)),
                      bytes(field(32))};
}

/// Element (row r, k) of a K-major matrix without swizzle, as f32: byte
/// offset + (r / 8) stride + (r % 8) 16 + (kb / 16) leading + kb % 16 with
/// kb = k x elementBytes; bf16 little-endian.
static Value sharedElement(ImplicitLocOpBuilder &b, const SharedMatrix &m,
                           Value r, Value k, bool bf16) {
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, v);
  };
  Value kb = bf16 ? arith::MulIOp::create(b, k, index(2)) : k;
  Value at = arith::AddIOp::create(
      b,
      arith::AddIOp::create(
          b, m.offset,
          arith::AddIOp::create(
              b,
              arith::MulIOp::create(b, arith::DivUIOp::create(b, r, index(8)),
                                    m.stride),
              arith::MulIOp::create(b, arith::RemUIOp::create(b, r, index(8)),
                                    index(16)))),
      arith::AddIOp::create(
          b,
          arith::MulIOp::create(b, arith::DivUIOp::create(b, kb, index(16)),
                                m.leading),
          arith::RemUIOp::create(b, kb, index(16))));
  Value low = memref::LoadOp::create(b, m.buffer, ValueRange{at});
  if (!bf16) {
    mlir::indexpool::loops::Emitter e(b, 1, /*stackScopes=*/false);
    return e.toF32(
        arith::BitcastOp::create(b, b.getType<Float8E4M3FNType>(), low));
  }
  Value high = memref::LoadOp::create(
      b, m.buffer, ValueRange{arith::AddIOp::create(b, at, index(1))});
  Type i16 = b.getI16Type();
  Value bits = arith::OrIOp::create(
      b, arith::ExtUIOp::create(b, i16, low),
      arith::ShLIOp::create(b, arith::ExtUIOp::create(b, i16, high),
                            arith::ConstantIntOp::create(b, 8, 16)));
  return arith::ExtFOp::create(
      b, b.getF32Type(),
      Value(arith::BitcastOp::create(b, b.getBF16Type(), bits)));
}

/// wgmma.mma_async m64nNk16 (bf16) or m64nNk32 (e4m3), both operands
/// K-major in shared memory, f32 accumulators: each thread computes its
/// own N / 2 accumulators (warp w of the warpgroup: rows 16 w + g and
/// + 8, columns 8 j + 2t and + 1) straight from the shared buffers, f32
/// sums in k order after the input value (one valid order). Synchronous:
/// the fence, commit and wait around it have nothing left to do.
static LogicalResult emulateWgmma(NVVM::WgmmaMmaAsyncOp op, const Team &team) {
  NVVM::MMAShapeAttr shape = op.getShape();
  bool bf16 = op.getTypeA() == NVVM::WGMMATypes::bf16;
  auto resultType = dyn_cast<LLVM::LLVMStructType>(op.getResults().getType());
  if (!(bf16 || op.getTypeA() == NVVM::WGMMATypes::e4m3) ||
      op.getTypeB() != op.getTypeA() ||
      op.getTypeD() != NVVM::WGMMATypes::f32 || shape.getM() != 64 ||
      shape.getK() != (bf16 ? 16 : 32) || shape.getN() % 8 != 0 ||
      op.getScaleA() != NVVM::WGMMAScaleIn::one ||
      op.getScaleB() != NVVM::WGMMAScaleIn::one ||
      op.getLayoutA() != NVVM::MMALayout::row ||
      op.getLayoutB() != NVVM::MMALayout::col || !resultType ||
      static_cast<int64_t>(resultType.getBody().size()) != shape.getN() / 2)
    return op.emitOpError(
        "the GPU emulator handles only wgmma m64nNk16 on bf16 or m64nNk32 on "
        "e4m3 with K-major A and B, unscaled inputs and f32 accumulators");
  ImplicitLocOpBuilder b(op.getLoc(), op);
  FailureOr<SharedMatrix> a = sharedMatrix(b, op, op.getDescriptorA());
  if (failed(a))
    return failure();
  FailureOr<SharedMatrix> bm = sharedMatrix(b, op, op.getDescriptorB());
  if (failed(bm))
    return failure();
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, v);
  };
  Value lane = arith::RemUIOp::create(b, team.thread, index(kWarpSize));
  Value warp = arith::RemUIOp::create(
      b, arith::DivUIOp::create(b, team.thread, index(kWarpSize)), index(4));
  Value g = arith::DivUIOp::create(b, lane, index(4));
  Value t = arith::RemUIOp::create(b, lane, index(4));
  Value rowBase = arith::AddIOp::create(
      b, arith::MulIOp::create(b, warp, index(16)), g);
  bool accumulate = op.getScaleD() == NVVM::WGMMAScaleOut::one;
  Value result = LLVM::PoisonOp::create(b, resultType);
  for (int64_t i = 0; i < shape.getN() / 2; ++i) {
    Value row = arith::AddIOp::create(b, rowBase, index(8 * ((i / 2) % 2)));
    Value col = arith::AddIOp::create(
        b, arith::MulIOp::create(b, t, index(2)),
        index(8 * (i / 4) + i % 2));
    Value init = accumulate ? LLVM::ExtractValueOp::create(b, op.getInouts(), i)
                                  .getResult()
                            : arith::ConstantOp::create(b, b.getF32FloatAttr(0))
                                  .getResult();
    auto loop = scf::ForOp::create(
        b, index(0), index(shape.getK()), index(1), ValueRange{init},
        [&](OpBuilder &, Location, Value k, ValueRange acc) {
          Value product =
              arith::MulFOp::create(b, sharedElement(b, *a, row, k, bf16),
                                    sharedElement(b, *bm, col, k, bf16));
          scf::YieldOp::create(
              b, ValueRange{arith::AddFOp::create(b, acc[0], product)});
        });
    result = LLVM::InsertValueOp::create(b, result, loop.getResult(0), i);
  }
  op.getResults().replaceAllUsesWith(result);
  op.erase();
  return success();
}

static LogicalResult emulate(gpu::LaunchOp launch) {
  ImplicitLocOpBuilder b(launch.getLoc(), launch);
  std::optional<int64_t> threads = getConstantIntValue(launch.getBlockSizeX());
  std::optional<int64_t> threadsY = getConstantIntValue(launch.getBlockSizeY());
  std::optional<int64_t> threadsZ = getConstantIntValue(launch.getBlockSizeZ());
  if (!threads || threadsY != 1 || threadsZ != 1 ||
      *threads % kWarpSize != 0)
    return launch.emitOpError("the GPU emulator needs a constant 1-d block "
                              "of whole warps");
  if (!launch.getPrivateAttributions().empty() ||
      launch.getDynamicSharedMemorySize() || launch.hasClusterSize() ||
      !launch.getBody().hasOneBlock())
    return launch.emitOpError("the GPU emulator handles one-block bodies "
                              "with static workgroup buffers only");
  // The launches the GPU path refuses, refused here too.
  if (failed(mlir::indexpool::checkLaunchLimits(
          launch.getLoc(), launch.getGridSizeOperandValues(),
          launch.getBlockSizeOperandValues())))
    return failure();
  Type i32 = b.getI32Type();

  // Buffers shared by the team, allocated once for all blocks: the kernels
  // initialize what they read.
  SmallVector<Value> shared;
  for (BlockArgument arg : launch.getWorkgroupAttributions()) {
    auto type = cast<MemRefType>(arg.getType());
    if (!type.hasStaticShape())
      return launch.emitOpError("dynamic workgroup buffer");
    shared.push_back(memref::AllocaOp::create(
        b, MemRefType::get(type.getShape(), type.getElementType()),
        ValueRange{}, b.getI64IntegerAttr(16)));
  }
  Value exchange = memref::AllocaOp::create(
      b, MemRefType::get({*threads}, i32), ValueRange{}, IntegerAttr());
  bool hasMma = false;
  launch.walk([&](Operation *op) {
    hasMma |= isa<NVVM::MmaOp>(op) ||
              (isa<LLVM::CallIntrinsicOp>(op) &&
               cast<LLVM::CallIntrinsicOp>(op).getIntrin() ==
                   kFp8MmaIntrinsic);
  });
  Value mmaFragments;
  if (hasMma)
    mmaFragments = memref::AllocaOp::create(
        b, MemRefType::get({*threads * kMmaSlots}, b.getF32Type()),
        ValueRange{}, IntegerAttr());

  Value zero = arith::ConstantIndexOp::create(b, 0);
  Value one = arith::ConstantIndexOp::create(b, 1);
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  auto zLoop = scf::ForOp::create(b, zero, grid.z, one);
  b.setInsertionPointToStart(zLoop.getBody());
  auto yLoop = scf::ForOp::create(b, zero, grid.y, one);
  b.setInsertionPointToStart(yLoop.getBody());
  auto xLoop = scf::ForOp::create(b, zero, grid.x, one);
  b.setInsertionPointToStart(xLoop.getBody());

  omp::ParallelOperands clauses;
  clauses.numThreads =
      arith::ConstantIntOp::create(b, *threads, 32).getResult();
  auto team = omp::ParallelOp::create(b, clauses);
  Block *body = &team.getRegion().emplaceBlock();
  b.setInsertionPointToStart(body);

  Value thread = arith::IndexCastOp::create(
      b, b.getIndexType(),
      func::CallOp::create(b, kThreadNum, TypeRange{i32}, ValueRange{})
          .getResult(0));
  Value size =
      func::CallOp::create(b, kNumThreads, TypeRange{i32}, ValueRange{})
          .getResult(0);
  Value expected = arith::ConstantIntOp::create(b, *threads, 32);
  auto wrong = scf::IfOp::create(
      b, arith::CmpIOp::create(b, arith::CmpIPredicate::ne, size, expected),
      /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(wrong.thenBlock());
    func::CallOp::create(b, kMismatch, TypeRange{}, ValueRange{size, expected});
  }

  IRMapping map;
  gpu::KernelDim3 blockIds = launch.getBlockIds();
  gpu::KernelDim3 threadIds = launch.getThreadIds();
  gpu::KernelDim3 gridArgs = launch.getGridSize();
  gpu::KernelDim3 blockArgs = launch.getBlockSize();
  map.map(blockIds.x, xLoop.getInductionVar());
  map.map(blockIds.y, yLoop.getInductionVar());
  map.map(blockIds.z, zLoop.getInductionVar());
  map.map(threadIds.x, thread);
  map.map(threadIds.y, zero);
  map.map(threadIds.z, zero);
  map.map(gridArgs.x, grid.x);
  map.map(gridArgs.y, grid.y);
  map.map(gridArgs.z, grid.z);
  map.map(blockArgs.x, launch.getBlockSizeX());
  map.map(blockArgs.y, launch.getBlockSizeY());
  map.map(blockArgs.z, launch.getBlockSizeZ());
  for (auto [arg, buffer] : llvm::zip(launch.getWorkgroupAttributions(), shared))
    map.map(arg, buffer);
  for (Operation &op : launch.getBody().front().without_terminator())
    b.clone(op, map);
  omp::TerminatorOp::create(b);
  launch.erase();

  Team t{thread, exchange, mmaFragments};
  SmallVector<Operation *> rewrite;
  team.walk([&](Operation *op) {
    if (isa<gpu::BarrierOp, gpu::ShuffleOp, NVVM::MatchSyncOp, NVVM::MmaOp,
            NVVM::WgmmaMmaAsyncOp, NVVM::WgmmaFenceAlignedOp,
            NVVM::WgmmaGroupSyncAlignedOp, NVVM::WgmmaWaitGroupSyncOp,
            NVVM::FenceProxyOp>(op))
      rewrite.push_back(op);
    else if (auto call = dyn_cast<LLVM::CallIntrinsicOp>(op);
             call && call.getIntrin().starts_with("llvm.nvvm.mma."))
      rewrite.push_back(op);
  });
  for (Operation *op : rewrite) {
    if (auto mma = dyn_cast<NVVM::MmaOp>(op)) {
      if (failed(emulateMma(mma, t)))
        return failure();
    } else if (auto call = dyn_cast<LLVM::CallIntrinsicOp>(op)) {
      if (failed(emulateFp8Mma(call, t)))
        return failure();
    } else if (auto match = dyn_cast<NVVM::MatchSyncOp>(op)) {
      if (failed(emulateMatch(match, t)))
        return failure();
    } else if (auto shuffle = dyn_cast<gpu::ShuffleOp>(op)) {
      if (failed(emulateShuffle(shuffle, t)))
        return failure();
    } else if (auto wgmma = dyn_cast<NVVM::WgmmaMmaAsyncOp>(op)) {
      if (failed(emulateWgmma(wgmma, t)))
        return failure();
    } else if (!isa<gpu::BarrierOp>(op)) {
      // wgmma's fence, commit and wait, the proxy fence: the emulated
      // wgmma is synchronous and reads what the team wrote.
      op->erase();
    } else {
      OpBuilder rb(op);
      teamBarrier(rb, op->getLoc());
      op->erase();
    }
  }
  // Anything else of the gpu dialect has no CPU meaning here.
  WalkResult left = team.walk([](Operation *op) {
    if (isa<gpu::GPUDialect>(op->getDialect()))
      return op->emitOpError("is not handled by the GPU emulator"),
             WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(left.wasInterrupted());
}

struct IndexPoolEmulateGPUKernels
    : mlir::indexpool::impl::IndexPoolEmulateGPUKernelsBase<
          IndexPoolEmulateGPUKernels> {
  using Base::Base;

  /// The device's SM count is the emulated chip's.
  LogicalResult emulateDeviceSmCount(ModuleOp module) {
    SmallVector<Operation *> queries;
    module.walk([&](Operation *op) {
      if (mlir::indexpool::isDeviceSmCount(op))
        queries.push_back(op);
    });
    for (Operation *query : queries) {
      if (smCount < 1)
        return query->emitError("the GPU emulator needs the SM count of the "
                                "emulated chip (sm-count) for this query");
      OpBuilder rb(query);
      query->getResult(0).replaceAllUsesWith(
          arith::ConstantIndexOp::create(rb, query->getLoc(), smCount));
      query->erase();
    }
    if (auto decl = module.lookupSymbol<func::FuncOp>(
            mlir::indexpool::kDeviceSmCountFunction))
      decl.erase();
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<NVVM::ConvertF32x2ToF8x2Op> conversions;
    module.walk([&](NVVM::ConvertF32x2ToF8x2Op op) { conversions.push_back(op); });
    for (NVVM::ConvertF32x2ToF8x2Op op : conversions)
      if (failed(emulateFp8Convert(op)))
        return signalPassFailure();
    SmallVector<NVVM::ConvertF8x2ToF16x2Op> decodes;
    module.walk([&](NVVM::ConvertF8x2ToF16x2Op op) { decodes.push_back(op); });
    for (NVVM::ConvertF8x2ToF16x2Op op : decodes)
      if (failed(emulateFp8ToF16(op)))
        return signalPassFailure();
    if (failed(emulateDeviceSmCount(module)))
      return signalPassFailure();
    Builder b(&getContext());
    Type i32 = b.getI32Type();
    SmallVector<gpu::LaunchOp> launches;
    module.walk([&](gpu::LaunchOp l) { launches.push_back(l); });
    if (!launches.empty()) {
      declare(module, kThreadNum, b.getFunctionType({}, {i32}));
      declare(module, kNumThreads, b.getFunctionType({}, {i32}));
      declare(module, kMismatch, b.getFunctionType({i32, i32}, {}));
      declare(module, kBarrier, b.getFunctionType({}, {}));
    }
    // The buffers as the compiled kernels see them: pointer + sizes.
    if (failed(mlir::indexpool::passBuffersBySizes(launches)))
      return signalPassFailure();
    for (gpu::LaunchOp launch : launches)
      if (failed(emulate(launch)))
        return signalPassFailure();
    if (beforeDeallocation)
      return;
    // The barriers proper.
    SmallVector<func::CallOp> barriers;
    module.walk([&](func::CallOp call) {
      if (call.getCallee() == kBarrier)
        barriers.push_back(call);
    });
    for (func::CallOp call : barriers) {
      OpBuilder rb(call);
      omp::BarrierOp::create(rb, call.getLoc());
      call.erase();
    }
    if (auto barrier = module.lookupSymbol<func::FuncOp>(kBarrier))
      barrier.erase();
  }
};

} // namespace
