//===- ManifestSizes.cpp - evaluating a manifest's sizes ------------------===//

#include "indexpool/Runtime/ManifestSizes.h"

namespace indexpool::runtime {

namespace {
struct OpName {
  SizeExpr::Op op;
  const char *name;
};
constexpr OpName kOpNames[] = {
    {SizeExpr::Op::Dim, "dim"},       {SizeExpr::Op::SmCount, "sm_count"},
    {SizeExpr::Op::Add, "add"},       {SizeExpr::Op::Sub, "sub"},
    {SizeExpr::Op::Mul, "mul"},       {SizeExpr::Op::DivU, "divu"},
    {SizeExpr::Op::CeilDivU, "ceildivu"}, {SizeExpr::Op::RemU, "remu"},
    {SizeExpr::Op::MinU, "minu"},     {SizeExpr::Op::MaxU, "maxu"},
};
} // namespace

const char *sizeOpName(SizeExpr::Op op) {
  for (const OpName &entry : kOpNames)
    if (entry.op == op)
      return entry.name;
  return "?";
}

bool parseSizeOp(const std::string &name, SizeExpr::Op &op) {
  for (const OpName &entry : kOpNames)
    if (name == entry.name) {
      op = entry.op;
      return true;
    }
  return false;
}

std::string sizeOpNames() {
  std::string text;
  size_t count = sizeof(kOpNames) / sizeof(kOpNames[0]);
  for (size_t i = 0; i < count; ++i)
    text += std::string(i == 0 ? "" : i + 1 == count ? " or " : ", ") +
            kOpNames[i].name;
  return text;
}

bool applySizeOp(SizeExpr::Op op, int64_t a, int64_t b, int64_t &result,
                 std::string &why) {
  std::string name = sizeOpName(op);
  auto show = [&](const char *symbol) {
    return std::to_string(a) + " " + symbol + " " + std::to_string(b);
  };
  switch (op) {
  case SizeExpr::Op::Add:
    if (__builtin_add_overflow(a, b, &result) || result > kMaxSizeValue) {
      why = name + " overflows: " + show("+");
      return false;
    }
    return true;
  case SizeExpr::Op::Sub:
    result = a - b;
    if (result < 0) {
      why = name + " is negative: " + show("-");
      return false;
    }
    return true;
  case SizeExpr::Op::Mul:
    if (__builtin_mul_overflow(a, b, &result) || result > kMaxSizeValue) {
      why = name + " overflows: " + show("*");
      return false;
    }
    return true;
  case SizeExpr::Op::DivU:
  case SizeExpr::Op::CeilDivU:
  case SizeExpr::Op::RemU:
    if (b == 0) {
      why = name + " by 0: " + show(op == SizeExpr::Op::RemU ? "%" : "/");
      return false;
    }
    result = op == SizeExpr::Op::DivU     ? a / b
             : op == SizeExpr::Op::RemU   ? a % b
                                          : a / b + (a % b != 0);
    return true;
  case SizeExpr::Op::MinU:
    result = a < b ? a : b;
    return true;
  case SizeExpr::Op::MaxU:
    result = a < b ? b : a;
    return true;
  case SizeExpr::Op::Dim:
  case SizeExpr::Op::SmCount:
    break;
  }
  why = name + " is not a binary op";
  return false;
}

bool evaluateSizes(const std::vector<SizeExpr> &sizes,
                   const std::vector<std::vector<int64_t>> &inputShapes,
                   int64_t smCount, std::vector<int64_t> &values,
                   size_t &entry, std::string &why) {
  values.clear();
  for (entry = 0; entry < sizes.size(); ++entry) {
    const SizeExpr &size = sizes[entry];
    int64_t value = 0;
    switch (size.op) {
    case SizeExpr::Op::Dim: {
      if (size.input < 0 || size.input >= int64_t(inputShapes.size()) ||
          size.dim < 0 ||
          size.dim >= int64_t(inputShapes[size_t(size.input)].size())) {
        why = "dim: input #" + std::to_string(size.input) +
              " has no dimension " + std::to_string(size.dim);
        return false;
      }
      value = inputShapes[size_t(size.input)][size_t(size.dim)];
      break;
    }
    case SizeExpr::Op::SmCount:
      if (smCount <= 0) {
        why = "sm_count: the device's multiprocessor count is unknown";
        return false;
      }
      value = smCount;
      break;
    default: {
      int64_t operands[2];
      for (size_t k = 0; k < 2; ++k) {
        const SizeOperand &arg = size.args[k];
        if (arg.isSize() && arg.size >= int64_t(entry)) {
          why = "args[" + std::to_string(k) + "] names sizes[" +
                std::to_string(arg.size) + "], not an earlier size";
          return false;
        }
        operands[k] = arg.isSize() ? values[size_t(arg.size)] : arg.value;
      }
      if (!applySizeOp(size.op, operands[0], operands[1], value, why))
        return false;
    }
    }
    if (value < 0 || value > kMaxSizeValue) {
      why = std::string(sizeOpName(size.op)) + " is " + std::to_string(value) +
            ", not in [0, 2^62]";
      return false;
    }
    values.push_back(value);
  }
  return true;
}

} // namespace indexpool::runtime
