//===- PagedLayout.cpp - where the paged ops' entries are in a page -------===//

#include "PagedLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/TypeUtilities.h"

#include <cassert>

using namespace mlir;
using namespace mlir::indexpool::loops;

Value PageEntries::codeBytes(Emitter &e, Value dimD) const {
  if (!packed())
    return dimD;
  return arith::DivUIOp::create(e.builder(), dimD,
                                e.index(codeInfo().codesPerByte()));
}

Value PageEntries::codesAt(Emitter &e, Value entry, Value dimD) const {
  return e.add(e.index(scalesFirst ? ::indexpool::vocab::kScaleBytes * entries
                                    : 0),
               e.mul(entry, codeBytes(e, dimD)));
}

Value PageEntries::scaleAt(Emitter &e, Value entry, Value dimD) const {
  return e.add(scalesFirst ? e.index(0)
                           : e.mul(e.index(entries), codeBytes(e, dimD)),
               e.mul(entry, e.index(4)));
}

Value mlir::indexpool::loops::toIndex(ImplicitLocOpBuilder &b, Value v) {
  return arith::IndexCastOp::create(b, b.getIndexType(), v);
}

Value mlir::indexpool::loops::inRange(Emitter &e, Value v, Value bound) {
  ImplicitLocOpBuilder &b = e.builder();
  return arith::AndIOp::create(
      b, arith::CmpIOp::create(b, arith::CmpIPredicate::sge, v, e.index(0)),
      arith::CmpIOp::create(b, arith::CmpIPredicate::slt, v, bound));
}

Value mlir::indexpool::loops::loadLength(Emitter &e, Value lengths,
                                         ValueRange at) {
  ImplicitLocOpBuilder &b = e.builder();
  return arith::MaxSIOp::create(
      b, toIndex(b, memref::LoadOp::create(b, lengths, at)), e.index(0));
}

Value mlir::indexpool::loops::selectedEntries(Emitter &e, Value length,
                                              int64_t poolSize,
                                              Value capacity) {
  ImplicitLocOpBuilder &b = e.builder();
  return arith::MinUIOp::create(
      b, arith::DivUIOp::create(b, length, e.index(poolSize)), capacity);
}

void mlir::indexpool::loops::storeTailTokens(Emitter &e, Value length,
                                             int64_t poolSize, int64_t k,
                                             Value tokens, Value m) {
  ImplicitLocOpBuilder &b = e.builder();
  Type i32 = b.getI32Type();
  Value tail = arith::RemUIOp::create(b, length, e.index(poolSize));
  Value start = arith::SubIOp::create(b, length, tail);
  for (int64_t t = 0; t + 1 < poolSize; ++t) {
    Value isTail =
        arith::CmpIOp::create(b, arith::CmpIPredicate::ult, e.index(t), tail);
    Value token = arith::SelectOp::create(
        b, isTail, arith::IndexCastOp::create(b, i32, e.add(start, e.index(t))),
        e.i32(-1));
    memref::StoreOp::create(b, token, tokens,
                            ValueRange{m, e.index(k * poolSize + t)});
  }
}

std::pair<Value, Value> mlir::indexpool::loops::locateEntry(
    Emitter &e, const PageEntries &layout, Value table, Value seq, Value j,
    Value numPages) {
  ImplicitLocOpBuilder &b = e.builder();
  Value slot = arith::DivUIOp::create(b, j, e.index(layout.entries));
  Value id =
      toIndex(b, memref::LoadOp::create(b, table, ValueRange{seq, slot}));
  Value page = arith::MinSIOp::create(
      b, arith::MaxSIOp::create(b, id, e.index(0)),
      arith::SubIOp::create(b, numPages, e.index(1)));
  return {page, arith::RemUIOp::create(b, j, e.index(layout.entries))};
}

/// Chunk `c` of a packed entry's codes as f32: lane i is code offset + i,
/// in the low (even) or high (odd) nibble of byte (offset + i) / 2, moved
/// to the low bits and decoded (Emitter::decodePackedCode). A gather, which
/// also serves the masked tail and any vector width; the decode is once per
/// entry, the scoring H times as much work.
static Value loadPackedCodes(Emitter &e, const PageEntries &layout,
                             Value pages, Value page, Value at, Chunk c) {
  ImplicitLocOpBuilder &b = e.builder();
  int64_t vl = e.width();
  int64_t bits = layout.codeInfo().bits;
  VectorType indexType = e.vecType(b.getIndexType());
  VectorType bytesType = e.vecType(b.getI8Type());
  VectorType maskType = e.vecType(b.getI1Type());
  auto indexSplat = [&](int64_t v) {
    return arith::ConstantOp::create(
        b, DenseElementsAttr::get(indexType, b.getIndexAttr(v)));
  };
  auto byteSplat = [&](int64_t v) {
    return arith::ConstantOp::create(
        b, DenseElementsAttr::get(bytesType, b.getI8IntegerAttr(v)));
  };
  int64_t perByteCount = layout.codeInfo().codesPerByte();
  if (!c.mask && vl % perByteCount == 0) {
    // A whole chunk starts at a whole byte: its vl / codesPerByte bytes are
    // contiguous, loaded at once and spread to one lane per code (a gather
    // of bytes would load them one by one).
    Value first = e.add(at, arith::DivUIOp::create(b, c.offset,
                                                   e.index(perByteCount)));
    Value packed = vector::LoadOp::create(
        b, VectorType::get({vl / perByteCount}, b.getI8Type()), pages,
        ValueRange{page, first});
    SmallVector<int64_t> spread;
    SmallVector<int8_t> shifts;
    for (int64_t i = 0; i < vl; ++i) {
      spread.push_back(i / perByteCount);
      shifts.push_back(int8_t((i % perByteCount) * bits));
    }
    Value bytes = vector::ShuffleOp::create(b, packed, packed, spread);
    Value shift = arith::ConstantOp::create(
        b, DenseElementsAttr::get(bytesType, ArrayRef<int8_t>(shifts)));
    return e.decodePackedCode(arith::ShRUIOp::create(b, bytes, shift),
                              layout.codeType);
  }
  SmallVector<int64_t> iota(vl);
  for (int64_t i = 0; i < vl; ++i)
    iota[i] = i;
  Value lane = arith::AddIOp::create(
      b, vector::BroadcastOp::create(b, indexType, c.offset),
      arith::ConstantOp::create(b, b.getIndexVectorAttr(iota)));
  Value perByte = indexSplat(layout.codeInfo().codesPerByte());
  Value byteOf = arith::DivUIOp::create(b, lane, perByte);
  Value mask = c.mask ? c.mask
                      : Value(arith::ConstantOp::create(
                            b, DenseElementsAttr::get(maskType, true)));
  Value bytes =
      vector::GatherOp::create(b, bytesType, pages, ValueRange{page, at},
                               byteOf, mask, byteSplat(0), llvm::MaybeAlign());
  // Code i of a byte sits at bit i * bits (ElementTypes.def).
  Value shift = arith::MulIOp::create(
      b, arith::IndexCastOp::create(b, bytesType,
                                    arith::RemUIOp::create(b, lane, perByte)),
      byteSplat(bits));
  return e.decodePackedCode(arith::ShRUIOp::create(b, bytes, shift),
                            layout.codeType);
}

Value mlir::indexpool::loops::loadCodes(Emitter &e, const PageEntries &layout,
                                        Value pages, Value page, Value at,
                                        Chunk c) {
  ImplicitLocOpBuilder &b = e.builder();
  if (layout.packed())
    return loadPackedCodes(e, layout, pages, page, at, c);
  SmallVector<Value, 2> indices{page, e.add(at, c.offset)};
  if (layout.codeType.isInteger(8))
    return e.loadF32(pages, indices, c.mask);
  VectorType bytesType = e.vecType(b.getI8Type());
  Value raw;
  if (c.mask)
    raw = vector::MaskedLoadOp::create(
        b, bytesType, pages, indices, c.mask,
        arith::ConstantOp::create(
            b, DenseElementsAttr::get(bytesType, b.getI8IntegerAttr(0))));
  else
    raw = vector::LoadOp::create(b, bytesType, pages, indices);
  return e.toF32(
      arith::BitcastOp::create(b, e.vecType(layout.codeType), raw));
}

Value mlir::indexpool::loops::loadCodeBytes(Emitter &e,
                                            const PageEntries &layout,
                                            Value pages, Value page, Value at,
                                            Value offset, int64_t count) {
  ImplicitLocOpBuilder &b = e.builder();
  int64_t perByte = layout.codeInfo().codesPerByte();
  assert((perByte == 1 || layout.codeType.isInteger()) &&
         "codes of a byte, or integer codes below one");
  Value first = e.add(at, arith::DivUIOp::create(b, offset, e.index(perByte)));
  Value packed = vector::LoadOp::create(
      b, VectorType::get({count / perByte}, b.getI8Type()), pages,
      ValueRange{page, first});
  if (perByte == 1)
    return packed;
  assert(perByte == 2 && "codes below a byte are nibbles");
  // Code 2i is byte i's low nibble (ElementTypes.def), 2i + 1 its high
  // one: the low nibbles moved up, both interleaved, then each brought
  // down with its sign (no per-lane shift counts, which x86 has not for
  // bytes).
  auto bytes = cast<VectorType>(packed.getType());
  Value four = arith::ConstantOp::create(
      b, DenseElementsAttr::get(bytes, b.getI8IntegerAttr(4)));
  Value low = arith::ShLIOp::create(b, packed, four);
  SmallVector<int64_t> interleave;
  for (int64_t i = 0; i < count / 2; ++i)
    interleave.append({i, count / 2 + i});
  Value tops = vector::ShuffleOp::create(b, low, packed, interleave);
  Value fourWide = arith::ConstantOp::create(
      b, DenseElementsAttr::get(cast<VectorType>(tops.getType()),
                                b.getI8IntegerAttr(4)));
  return arith::ShRSIOp::create(b, tops, fourWide);
}

Value mlir::indexpool::loops::loadScale(Emitter &e, Value pages, Value page,
                                        Value at) {
  ImplicitLocOpBuilder &b = e.builder();
  Type i32 = b.getI32Type();
  if (e.cpuTarget()) {
    // The CPUs load a little-endian word at any address: one load (a GPU
    // needs it aligned, which a scale in a page need not be).
    Value word = vector::LoadOp::create(
        b, VectorType::get({4}, b.getI8Type()), pages, ValueRange{page, at});
    return vector::ExtractOp::create(
        b, vector::BitCastOp::create(b, VectorType::get({1}, b.getF32Type()),
                                     word),
        0);
  }
  Value bits;
  for (int64_t i = 0; i < 4; ++i) {
    Value byte = memref::LoadOp::create(
        b, pages, ValueRange{page, e.add(at, e.index(i))});
    Value part = arith::ShLIOp::create(
        b, arith::ExtUIOp::create(b, i32, byte),
        arith::ConstantIntOp::create(b, 8 * i, 32));
    bits = bits ? Value(arith::OrIOp::create(b, bits, part)) : part;
  }
  return arith::BitcastOp::create(b, b.getF32Type(), bits);
}

Value mlir::indexpool::loops::codeBytes(ImplicitLocOpBuilder &b, Value codes) {
  Type element = getElementTypeOrSelf(codes.getType());
  if (element.isInteger(8))
    return codes;
  Type bytes = b.getI8Type();
  if (auto vector = dyn_cast<VectorType>(codes.getType()))
    bytes = vector.clone(bytes);
  return arith::BitcastOp::create(b, bytes, codes);
}

Value mlir::indexpool::loops::packNibbles(ImplicitLocOpBuilder &b, Value low,
                                     Value high) {
  auto constant = [&](int64_t v) -> Value {
    if (auto vector = dyn_cast<VectorType>(low.getType()))
      return arith::ConstantOp::create(
          b, DenseElementsAttr::get(vector, b.getI8IntegerAttr(v)));
    return arith::ConstantIntOp::create(b, b.getI8Type(), v);
  };
  Value lowNibble = arith::AndIOp::create(b, low, constant(0xF));
  Value highNibble = arith::ShLIOp::create(b, high, constant(4));
  return arith::OrIOp::create(b, lowNibble, highNibble);
}

Value mlir::indexpool::loops::packNibbleCodes(ImplicitLocOpBuilder &b,
                                          Value codes) {
  int64_t n = cast<VectorType>(codes.getType()).getNumElements();
  SmallVector<int64_t> even, odd;
  for (int64_t i = 0; i + 1 < n; i += 2) {
    even.push_back(i);
    odd.push_back(i + 1);
  }
  return packNibbles(b, vector::ShuffleOp::create(b, codes, codes, even),
                vector::ShuffleOp::create(b, codes, codes, odd));
}

void mlir::indexpool::loops::storeScale(Emitter &e, Value scale, Value pages,
                                        Value page, Value at) {
  ImplicitLocOpBuilder &b = e.builder();
  Type i8 = b.getI8Type(), i32 = b.getI32Type();
  Value bits = arith::BitcastOp::create(b, i32, scale);
  for (int64_t i = 0; i < 4; ++i) {
    Value shifted = arith::ShRUIOp::create(
        b, bits, arith::ConstantIntOp::create(b, 8 * i, 32));
    memref::StoreOp::create(b, arith::TruncIOp::create(b, i8, shifted), pages,
                            ValueRange{page, e.add(at, e.index(i))});
  }
}

void mlir::indexpool::loops::copyRow(Emitter &e, Value from,
                                     SmallVector<Value> fromAt, Value to,
                                     SmallVector<Value> toAt, bool rowOfD) {
  ImplicitLocOpBuilder &b = e.builder();
  auto element = [&](Value d) {
    SmallVector<Value> src = fromAt, dst = toAt;
    if (d) {
      src.push_back(d);
      dst.push_back(d);
    }
    memref::StoreOp::create(b, memref::LoadOp::create(b, from, src), to, dst);
  };
  if (rowOfD)
    e.forLoop(e.index(0), e.dim(from, 2), element);
  else
    element(Value());
}

Value mlir::indexpool::loops::writtenLater(Emitter &e,
                                           const PageEntries &layout,
                                           int64_t poolSize, Value keys,
                                           Value lengths, Value table,
                                           Value seq, Value page, Value entry) {
  ImplicitLocOpBuilder &b = e.builder();
  Value entries = e.index(layout.entries), p = e.index(poolSize);
  Value capacity = e.mul(e.dim(table, 1), entries);
  Value no = arith::ConstantIntOp::create(b, 0, 1);
  Value yes = arith::ConstantIntOp::create(b, 1, 1);
  return e.forLoop(
      e.add(seq, e.index(1)), e.dim(keys, 0), e.index(1), {no},
      [&](Value other, ValueRange found) -> SmallVector<Value> {
        // The groups `other` completes: firstGroup .. firstGroup + complete.
        Value length = loadLength(e, lengths, {other});
        Value firstGroup = arith::DivUIOp::create(b, length, p);
        Value complete = arith::DivUIOp::create(
            b, e.add(arith::RemUIOp::create(b, length, p), e.dim(keys, 1)), p);
        return e.forLoop(
            e.index(0), complete, e.index(1), {found[0]},
            [&](Value i, ValueRange hit) -> SmallVector<Value> {
              Value g = e.add(firstGroup, i);
              Value same = arith::AndIOp::create(
                  b,
                  arith::CmpIOp::create(b, arith::CmpIPredicate::ult, g,
                                        capacity),
                  arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                                        arith::RemUIOp::create(b, g, entries),
                                        entry));
              same = e.ifThen(same, {no}, [&]() {
                Value id = toIndex(
                    b, memref::LoadOp::create(
                           b, table,
                           ValueRange{other,
                                      arith::DivUIOp::create(b, g, entries)}));
                return SmallVector<Value>{arith::CmpIOp::create(
                    b, arith::CmpIPredicate::eq, id, page)};
              })[0];
              return {arith::SelectOp::create(b, same, yes, hit[0])};
            });
      })[0];
}

void TokenStream::copy(Emitter &e, Value t, Value keysTo, Value scoresTo,
                       SmallVector<Value> at) const {
  ImplicitLocOpBuilder &b = e.builder();
  bool perChannel = cast<MemRefType>(scores.getType()).getRank() == 3;
  auto from = [&](Value keysFrom, Value scoresFrom, Value row) {
    copyRow(e, keysFrom, {seq, row}, keysTo, at, /*rowOfD=*/true);
    copyRow(e, scoresFrom, {seq, row}, scoresTo, at, perChannel);
  };
  Value inTail = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, t, tail);
  e.ifThen(inTail, [&]() { from(tailKeys, tailScores, t); });
  e.ifThen(arith::XOrIOp::create(b, inTail,
                                 arith::ConstantIntOp::create(b, 1, 1)),
           [&]() { from(keys, scores, arith::SubIOp::create(b, t, tail)); });
}
