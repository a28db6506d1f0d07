//===- Builders.cpp - compress and select functions as IR -----------------===//
//
// The builders write MLIR assembly and parse it: the text is what a user
// would write, so the Module a builder returns prints and verifies like any
// other, and a spec the ops reject gets the verifier's own message.
//
//===----------------------------------------------------------------------===//

#include "indexpool/API/Builders.h"

#include <cctype>
#include <cstdio>
#include <sstream>

using namespace indexpool;

static std::string size(int64_t n) { return n < 0 ? "?" : std::to_string(n); }

static std::string tensor(std::initializer_list<int64_t> shape, DType dtype) {
  std::string text = "tensor<";
  for (int64_t n : shape)
    text += size(n) + "x";
  return text + dtypeName(dtype) + ">";
}

static std::string floatLiteral(float value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.9e", double(value));
  return text;
}

static bool isKeyType(DType t) {
  return t == DType::F32 || t == DType::F16 || t == DType::BF16;
}
static bool isCodeType(DType t) {
  return t == DType::F8E4M3FN || t == DType::I8;
}

static Status checkName(const std::string &name) {
  if (name.empty())
    return Status::error("the function needs a name");
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
          c == '$'))
      return Status::error("function name '" + name +
                           "' must be letters, digits, _ . or $");
  return Status();
}

std::unique_ptr<Module> indexpool::buildCompress(const CompressSpec &spec,
                                                 Status &status) {
  status = checkName(spec.name);
  if (status && !isKeyType(spec.keyType))
    status = Status::error(std::string("keyType must be f32, f16 or bf16, got ") +
                           dtypeName(spec.keyType));
  if (status && !isCodeType(spec.codeType))
    status = Status::error(std::string("codeType must be f8E4M3FN or i8, got ") +
                           dtypeName(spec.codeType));
  if (status && spec.bias != "none" && spec.bias != "slot" &&
      spec.bias != "channel")
    status = Status::error("bias must be none, slot or channel, got '" +
                           spec.bias + "'");
  if (status && (spec.poolSize < 1 || spec.dim < 1 || spec.tokens < -1))
    status = Status::error("poolSize and dim must be positive, tokens >= 0 "
                           "or -1 (dynamic)");
  if (!status)
    return nullptr;
  int64_t t = spec.tokens, d = spec.dim, p = spec.poolSize;
  int64_t g = t < 0 ? -1 : t / p;
  std::string keys = tensor({t, d}, spec.keyType);
  std::string scores = spec.perChannelScores ? tensor({t, d}, DType::F32)
                                             : tensor({t}, DType::F32);
  std::string bias = spec.bias == "channel" ? tensor({p, d}, DType::F32)
                                            : tensor({p}, DType::F32);
  std::string codes = tensor({g, d}, spec.codeType);
  std::string scales = tensor({g}, DType::F32);
  std::string weights = spec.perChannelScores ? tensor({g, p, d}, DType::F32)
                                              : tensor({g, p}, DType::F32);
  bool hasBias = spec.bias != "none";
  std::ostringstream ir;
  ir << "func.func @" << spec.name << "(%keys: " << keys
     << ", %scores: " << scores;
  if (hasBias)
    ir << ", %bias: " << bias;
  ir << ") -> (" << codes << ", " << scales << ") {\n";
  ir << "  %codes, %scales, %weights = indexpool.compress %keys, %scores";
  if (hasBias)
    ir << " bias(%bias)";
  ir << " {pool_size = " << p << " : i64";
  if (spec.temperature != 1.0f)
    ir << ", temperature = " << floatLiteral(spec.temperature) << " : f32";
  if (spec.rotate)
    ir << ", rotate";
  if (spec.pow2Scale)
    ir << ", pow2_scale";
  ir << "}\n      : (" << keys << ", " << scores;
  if (hasBias)
    ir << ", " << bias;
  ir << ") -> (" << codes << ", " << scales << ", " << weights << ")\n";
  ir << "  return %codes, %scales : " << codes << ", " << scales << "\n}\n";
  return Module::parse(ir.str(), status, "<" + spec.name + ">");
}

std::unique_ptr<Module> indexpool::buildSelect(const SelectSpec &spec,
                                               Status &status) {
  status = checkName(spec.name);
  if (status && spec.queryType == DType::I8)
    status = Status::error("queryType must be f32, f16, bf16 or f8E4M3FN");
  if (status && (spec.codeType == DType::I32 || spec.codeType == DType::I64))
    status = Status::error("codeType must be f8E4M3FN, i8, f32, f16 or bf16");
  if (status && (spec.queries < 0 || spec.heads < 1 || spec.dim < 1 ||
                 spec.pools < -1 || spec.k < 1 || spec.poolSize < 1))
    status = Status::error("queries >= 0; heads, dim, k, poolSize >= 1; "
                           "pools >= 0 or -1 (dynamic)");
  if (!status)
    return nullptr;
  int64_t m = spec.queries, h = spec.heads, d = spec.dim, n = spec.pools;
  bool scaled = isCodeType(spec.codeType);
  std::string query = tensor({m, h, d}, spec.queryType);
  std::string weights = tensor({m, h}, DType::F32);
  std::string codes = tensor({n, d}, spec.codeType);
  std::string scales = tensor({n}, DType::F32);
  std::string valid = tensor({m}, DType::I32);
  std::string tokens = tensor({m, spec.k * spec.poolSize}, DType::I32);
  std::ostringstream ir;
  ir << "func.func @" << spec.name << "(%query: " << query
     << ", %head_weights: " << weights << ", %codes: " << codes;
  if (scaled)
    ir << ", %scales: " << scales;
  if (spec.valid)
    ir << ", %valid: " << valid;
  ir << ") -> " << tokens << " {\n";
  std::string q = "%query";
  if (spec.rotate) {
    // q.k = (qH).(kH) for the orthonormal H the keys were rotated with.
    ir << "  %rotated = indexpool.hadamard %query : (" << query << ") -> "
       << query << "\n";
    q = "%rotated";
  }
  ir << "  %tokens = indexpool.select " << q << ", %head_weights, %codes";
  if (scaled)
    ir << " scales(%scales)";
  if (spec.valid)
    ir << " valid(%valid)";
  ir << " {k = " << spec.k << " : i64, pool_size = " << spec.poolSize
     << " : i64}\n      : (" << query << ", " << weights << ", " << codes;
  if (scaled)
    ir << ", " << scales;
  if (spec.valid)
    ir << ", " << valid;
  ir << ") -> " << tokens << "\n  return %tokens : " << tokens << "\n}\n";
  return Module::parse(ir.str(), status, "<" + spec.name + ">");
}
