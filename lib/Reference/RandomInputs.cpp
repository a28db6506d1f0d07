//===- RandomInputs.cpp - realistic random operands, by use ---------------===//

#include "indexpool/Reference/RandomInputs.h"

#include "indexpool/Dialect/OpContract.h"
#include "indexpool/Reference/Reference.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace indexpool::ref {
namespace {

/// Uniform in [0, 1) from the top 53 bits of one draw (portable).
double uniform01(std::mt19937_64 &rng) {
  return std::ldexp(double(rng() >> 11), -53);
}

/// Makes an all-zero tensor non-zero (STYLE.md: never test on zeros).
void avoidAllZeros(HostTensor &t) {
  if (!t.data.empty() && std::all_of(t.data.begin(), t.data.end(),
                                     [](double value) { return value == 0; }))
    t.data[0] = 1;
}

/// The codes quantize writes (i8, f8E4M3FN): what quantized keys hold.
bool isQuantizedType(ElementType type) {
  return elementTypeInfo(type).allows(ElementUse::DenseCode);
}

} // namespace

InputDistribution distributionOfOperand(std::string_view op,
                                        std::string_view operand,
                                        ElementType operandType) {
  const mlir::indexpool::OpContract *contract =
      mlir::indexpool::findOpContract(op);
  const mlir::indexpool::OperandContract *use =
      contract ? contract->findOperand(operand) : nullptr;
  if (!use)
    return InputDistribution::Default;
  if (use->draw == InputDistribution::QuantizedCodes &&
      !isQuantizedType(operandType))
    return InputDistribution::Normal;
  return use->draw;
}

int distributionSpecificity(InputDistribution distribution) {
  switch (distribution) {
  case InputDistribution::PageSlots:
    return 8;
  case InputDistribution::PageIds:
    return 7;
  case InputDistribution::CandidateTokens:
    return 6;
  case InputDistribution::ValidLengths:
    return 5;
  case InputDistribution::PoolIndices:
    return 4;
  case InputDistribution::QuantizedCodes:
    return 3;
  case InputDistribution::PositiveScales:
    return 2;
  case InputDistribution::Normal:
    return 1;
  case InputDistribution::Default:
    return 0;
  }
  return 0;
}

HostTensor drawRandomInput(InputDistribution distribution, ElementType type,
                           const std::vector<int64_t> &shape,
                           std::mt19937_64 &rng, int64_t lengthBound) {
  HostTensor t;
  auto uniformInts = [&](int64_t lo, int64_t hi) {
    HostTensor ints = randomInt32(shape, lo, hi, rng);
    ints.type = type;
    avoidAllZeros(ints);
    return ints;
  };
  bool isInteger = type == ElementType::I8 || type == ElementType::I32 ||
                   type == ElementType::I64;
  switch (distribution) {
  case InputDistribution::PositiveScales:
    t = HostTensor::zeros(type, shape);
    for (double &value : t.data)
      value = isInteger ? 1.0 : roundTo(1e-3 + 9e-3 * uniform01(rng), type);
    break;
  case InputDistribution::QuantizedCodes:
    if (type == ElementType::F8E4M3FN)
      t = randomNormal(type, shape, rng, /*stddev=*/64.0);
    else if (isInteger)
      t = uniformInts(-127, 127);
    else
      t = randomNormal(type, shape, rng);
    break;
  case InputDistribution::ValidLengths: {
    int64_t columns = std::clamp<int64_t>(
        lengthBound, 0, std::numeric_limits<int32_t>::max());
    t = randomInt32(shape, 0, columns, rng);
    t.type = type;
    // At least one full row, so that every column can be selected.
    if (!t.data.empty())
      t.data[rng() % t.data.size()] = double(columns);
    break;
  }
  case InputDistribution::PoolIndices:
    t = isInteger ? uniformInts(-1, 1000) : randomNormal(type, shape, rng);
    break;
  case InputDistribution::CandidateTokens: {
    int64_t tokens = std::clamp<int64_t>(lengthBound, 0,
                                         std::numeric_limits<int32_t>::max());
    t = randomInt32(shape, 0, std::max<int64_t>(tokens - 1, 0), rng);
    t.type = type;
    // Padding: one in eight, and every id when there are no keys.
    for (double &value : t.data)
      if (tokens == 0 || rng() % 8 == 0)
        value = -1;
    break;
  }
  case InputDistribution::PageSlots:
  case InputDistribution::PageIds: {
    // A shuffled run of [0, N) (Fisher-Yates on raw draws, portable).
    int64_t count = std::clamp<int64_t>(lengthBound, 0,
                                        std::numeric_limits<int32_t>::max());
    t = HostTensor::zeros(type, shape);
    std::vector<double> ids;
    for (size_t i = 0; i < t.data.size(); ++i) {
      if (ids.empty()) {
        if (count == 0 || (distribution == InputDistribution::PageSlots &&
                           i >= size_t(count))) {
          t.data[i] = -1; // nothing left to write to
          continue;
        }
        for (int64_t id = count - 1; id >= 0; --id)
          ids.push_back(double(id));
        for (size_t j = ids.size() - 1; j > 0; --j)
          std::swap(ids[j], ids[rng() % (j + 1)]);
      }
      t.data[i] = ids.back();
      ids.pop_back();
      if (distribution == InputDistribution::PageSlots && rng() % 8 == 0)
        t.data[i] = -1; // the write mask
    }
    break;
  }
  case InputDistribution::Normal:
  case InputDistribution::Default:
    if (type == ElementType::I32 || type == ElementType::I64)
      t = uniformInts(0, 100);
    else if (type == ElementType::I8)
      t = uniformInts(-127, 127);
    else
      t = randomNormal(type, shape, rng);
    break;
  }
  return t;
}

} // namespace indexpool::ref
