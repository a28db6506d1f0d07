//===- Builders.cpp - compress, select and paged functions as IR ----------===//
//
// The builders write MLIR assembly and parse it: the text is what a user
// would write, so the Module a builder returns prints and verifies like any
// other, and a spec the ops reject gets the verifier's own message.
//
//===----------------------------------------------------------------------===//

#include "indexpool/API/Builders.h"
#include "indexpool/Vocabulary/PageLayout.h"

#include <cctype>
#include <cstdint>
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
/// Codes of quantize and the dense ops (ElementTypes.def's DenseCode).
static bool isCodeType(DType t) {
  return int(t) >= 0 && int(t) < kNumElementTypes &&
         elementTypeInfo(t).allows(ElementUse::DenseCode);
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

/// compress's properties (pool_size ... pow2_scale), the dictionary left
/// open.
static void printPooling(std::ostream &ir, int64_t poolSize, float temperature,
                         bool rotate, bool pow2Scale) {
  ir << "{pool_size = " << poolSize << " : i64";
  if (temperature != 1.0f)
    ir << ", temperature = " << floatLiteral(temperature) << " : f32";
  if (rotate)
    ir << ", rotate";
  if (pow2Scale)
    ir << ", pow2_scale";
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
  ir << " ";
  printPooling(ir, p, spec.temperature, spec.rotate, spec.pow2Scale);
  ir << "}\n      : (" << keys << ", " << scores;
  if (hasBias)
    ir << ", " << bias;
  ir << ") -> (" << codes << ", " << scales << ", " << weights << ")\n";
  ir << "  return %codes, %scales : " << codes << ", " << scales << "\n}\n";
  return Module::parse(ir.str(), status, "<" + spec.name + ">");
}

/// k * P selected tokens per row: token indices are i32, so at most 2^31
/// (checked before the product is formed).
static Status checkSelectionWidth(int64_t k, int64_t poolSize) {
  if (k > (int64_t(1) << 31) / poolSize)
    return Status::error("k * poolSize = " + std::to_string(k) + " * " +
                         std::to_string(poolSize) +
                         " is more than 2^31 tokens (token indices are i32)");
  return Status();
}

/// The refine fields of a SelectSpec with refine > 0.
static Status checkRefine(const SelectSpec &spec) {
  if (spec.tokenKeyType == DType::I32 || spec.tokenKeyType == DType::I64)
    return Status::error("tokenKeyType must be f32, f16, bf16, f8E4M3FN or "
                         "i8");
  if (spec.tokens < -1)
    return Status::error("tokens >= 0 or -1 (dynamic)");
  if (spec.k > (int64_t(1) << 31) / spec.poolSize / spec.refine)
    return Status::error("refine * k * poolSize = " +
                         std::to_string(spec.refine) + " * " +
                         std::to_string(spec.k) + " * " +
                         std::to_string(spec.poolSize) +
                         " is more than 2^31 candidate tokens");
  // Sizes known here are checked here; dynamic ones follow the ops' rules
  // at run time (select: k <= N; refine: token ids past T are padding).
  if (spec.pools >= 0 && spec.refine * spec.k > spec.pools)
    return Status::error("refine * k = " + std::to_string(spec.refine) +
                         " * " + std::to_string(spec.k) +
                         " pools to keep, more than pools = " +
                         std::to_string(spec.pools) + ": lower refine or k");
  // tokens < pools * P, without the product (pools is not bounded).
  if (spec.pools >= 0 && spec.tokens >= 0 &&
      spec.tokens / spec.poolSize < spec.pools)
    return Status::error("tokens = " + std::to_string(spec.tokens) +
                         " token keys, fewer than the tokens of pools = " +
                         std::to_string(spec.pools) + " x P = " +
                         std::to_string(spec.poolSize) +
                         ": refine needs every pool's token keys");
  return Status();
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
  if (status)
    status = checkSelectionWidth(spec.k, spec.poolSize);
  if (status && spec.refine < 0)
    status = Status::error("refine must be >= 0 (0: no refinement)");
  if (status && spec.refine > 0)
    status = checkRefine(spec);
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
  // With refine, select keeps refine * k pools: its tokens are candidates.
  int64_t kept = spec.refine > 0 ? spec.refine * spec.k : spec.k;
  std::string selected = tensor({m, kept * spec.poolSize}, DType::I32);
  bool tokenScales = spec.refine > 0 && isCodeType(spec.tokenKeyType);
  std::string tokenKeys = tensor({spec.tokens, d}, spec.tokenKeyType);
  std::string tokenScalesType = tensor({spec.tokens}, DType::F32);
  std::ostringstream ir;
  ir << "func.func @" << spec.name << "(%query: " << query
     << ", %head_weights: " << weights << ", %codes: " << codes;
  if (scaled)
    ir << ", %scales: " << scales;
  if (spec.valid)
    ir << ", %valid: " << valid;
  if (spec.refine > 0)
    ir << ", %token_keys: " << tokenKeys;
  if (tokenScales)
    ir << ", %token_scales: " << tokenScalesType;
  ir << ") -> " << tokens << " {\n";
  std::string q = "%query";
  if (spec.rotate) {
    // q.k = (qH).(kH) for the orthonormal H the keys were rotated with.
    ir << "  %rotated = indexpool.hadamard %query : (" << query << ") -> "
       << query << "\n";
    q = "%rotated";
  }
  std::string result = spec.refine > 0 ? "%candidates" : "%tokens";
  ir << "  " << result << " = indexpool.select " << q
     << ", %head_weights, %codes";
  if (scaled)
    ir << " scales(%scales)";
  if (spec.valid)
    ir << " valid(%valid)";
  ir << " {k = " << kept << " : i64, pool_size = " << spec.poolSize
     << " : i64}\n      : (" << query << ", " << weights << ", " << codes;
  if (scaled)
    ir << ", " << scales;
  if (spec.valid)
    ir << ", " << valid;
  ir << ") -> " << selected << "\n";
  if (spec.refine > 0) {
    ir << "  %tokens = indexpool.refine %query, %head_weights, %candidates, "
          "%token_keys";
    if (tokenScales)
      ir << " scales(%token_scales)";
    ir << " {k = " << spec.k * spec.poolSize << " : i64}\n      : (" << query
       << ", " << weights << ", " << selected << ", " << tokenKeys;
    if (tokenScales)
      ir << ", " << tokenScalesType;
    ir << ") -> " << tokens << "\n";
  }
  ir << "  return %tokens : " << tokens << "\n}\n";
  return Module::parse(ir.str(), status, "<" + spec.name + ">");
}

// The paged builders share compress's checks and properties.

static Status checkPooling(DType keyType, const std::string &bias,
                           int64_t poolSize, int64_t dim) {
  if (!isKeyType(keyType))
    return Status::error(std::string("keyType must be f32, f16 or bf16, got ") +
                         dtypeName(keyType));
  if (bias != "none" && bias != "slot" && bias != "channel")
    return Status::error("bias must be none, slot or channel, got '" + bias +
                         "'");
  if (poolSize < 1 || dim < 1)
    return Status::error("poolSize and dim must be positive");
  return Status();
}

/// The vocabulary's layout of a page of `dim` codes.
static vocab::PageLayout entryLayout(const PageLayout &layout, int64_t dim) {
  return {layout.pageEntries, dim, layout.codeType, layout.scalesFirst};
}

static Status checkLayout(const PageLayout &layout, int64_t dim) {
  constexpr uint8_t kCodes = ElementUse::PagedCode;
  if (int(layout.codeType) < 0 || int(layout.codeType) >= kNumElementTypes ||
      !elementTypeInfo(layout.codeType).allows(kCodes))
    return Status::error("layout.codeType must be " + elementTypeList(kCodes) +
                         ", got " +
                         (int(layout.codeType) >= 0 &&
                                  int(layout.codeType) < kNumElementTypes
                              ? dtypeName(layout.codeType)
                              : std::to_string(int(layout.codeType))));
  vocab::PageLayout entries = entryLayout(layout, dim);
  if (dim >= 1 && dim % entries.codeInfo().codesPerByte() != 0)
    return Status::error(
        vocab::PageLayout::dimRuleMessage(layout.codeType, dim, "dim"));
  if (layout.pages < -1 || layout.pageEntries < 1)
    return Status::error("layout.pages must be >= 0 or -1 (dynamic), "
                         "layout.pageEntries positive");
  if (dim >= 1 && entries.pageBytes() < 0)
    return Status::error("a page of layout.pageEntries * (dim + 4) bytes "
                         "overflows int64");
  return Status();
}

/// [pages, E * (D + 4)] i8: E entries of their code bytes and a 4-byte
/// scale (vocab::PageLayout).
static std::string pagesType(const PageLayout &layout, int64_t dim) {
  return tensor({layout.pages, entryLayout(layout, dim).pageBytes()},
                DType::I8);
}

/// The layout properties that differ from the ops' defaults.
static void printLayout(std::ostream &ir, const PageLayout &layout) {
  if (layout.pageEntries != 64)
    ir << ", page_entries = " << layout.pageEntries << " : i64";
  if (layout.codeType != vocab::PageLayout().codes)
    ir << ", codes = " << dtypeName(layout.codeType);
  if (layout.scalesFirst)
    ir << ", scales_first";
}


std::unique_ptr<Module>
indexpool::buildCompressPaged(const CompressPagedSpec &spec, Status &status) {
  status = checkName(spec.name);
  if (status)
    status = checkPooling(spec.keyType, spec.bias, spec.poolSize, spec.dim);
  if (status)
    status = checkLayout(spec.layout, spec.dim);
  if (status && spec.tokens < -1)
    status = Status::error("tokens must be >= 0 or -1 (dynamic)");
  if (!status)
    return nullptr;
  int64_t t = spec.tokens, d = spec.dim, p = spec.poolSize;
  std::string keys = tensor({t, d}, spec.keyType);
  std::string scores = spec.perChannelScores ? tensor({t, d}, DType::F32)
                                             : tensor({t}, DType::F32);
  std::string bias = spec.bias == "channel" ? tensor({p, d}, DType::F32)
                                            : tensor({p}, DType::F32);
  std::string pages = pagesType(spec.layout, d);
  std::string slots = tensor({t < 0 ? -1 : t / p}, DType::I64);
  bool hasBias = spec.bias != "none";
  std::ostringstream ir;
  ir << "func.func @" << spec.name << "(%keys: " << keys
     << ", %scores: " << scores;
  if (hasBias)
    ir << ", %bias: " << bias;
  ir << ", %pages: " << pages << ", %slots: " << slots << ") -> " << pages
     << " {\n";
  ir << "  %result = indexpool.compress_paged %keys, %scores";
  if (hasBias)
    ir << " bias(%bias)";
  ir << " into %pages at %slots ";
  printPooling(ir, p, spec.temperature, spec.rotate, spec.pow2Scale);
  printLayout(ir, spec.layout);
  ir << "}\n      : (" << keys << ", " << scores;
  if (hasBias)
    ir << ", " << bias;
  ir << ", " << pages << ", " << slots << ") -> " << pages << "\n";
  ir << "  return %result : " << pages << "\n}\n";
  return Module::parse(ir.str(), status, "<" + spec.name + ">");
}

std::unique_ptr<Module>
indexpool::buildSelectPaged(const SelectPagedSpec &spec, Status &status) {
  status = checkName(spec.name);
  if (status && (spec.queryType == DType::I8 || spec.queryType == DType::I32 ||
                 spec.queryType == DType::I64))
    status = Status::error("queryType must be f32, f16, bf16 or f8E4M3FN");
  if (status)
    status = checkLayout(spec.layout, spec.dim);
  if (status && (spec.batch < -1 || spec.maxPages < -1 || spec.rows < -1 ||
                 spec.rows == 0 || spec.heads < 1 || spec.dim < 1 ||
                 spec.k < 1 || spec.poolSize < 1))
    status = Status::error("batch and maxPages >= 0 or -1 (dynamic); rows "
                           ">= 1 or -1 (dynamic); heads, dim, k, poolSize "
                           ">= 1");
  if (status)
    status = checkSelectionWidth(spec.k, spec.poolSize);
  if (!status)
    return nullptr;
  int64_t b = spec.batch, s = spec.rows, h = spec.heads, d = spec.dim,
          p = spec.poolSize;
  std::string query = tensor({b, s, h, d}, spec.queryType);
  std::string weights = tensor({b, s, h}, DType::F32);
  std::string pages = pagesType(spec.layout, d);
  std::string table = tensor({b, spec.maxPages}, DType::I32);
  std::string lengths = tensor({b, s}, DType::I32);
  std::string tokens = tensor({b, s, spec.k * p + p - 1}, DType::I32);
  std::ostringstream ir;
  ir << "func.func @" << spec.name << "(%query: " << query
     << ", %head_weights: " << weights << ", %pages: " << pages
     << ", %block_table: " << table << ", %lengths: " << lengths << ") -> "
     << tokens << " {\n";
  std::string q = "%query";
  if (spec.rotate) {
    // q.k = (qH).(kH) for the orthonormal H the keys were rotated with.
    ir << "  %rotated = indexpool.hadamard %query : (" << query << ") -> "
       << query << "\n";
    q = "%rotated";
  }
  ir << "  %tokens = indexpool.select_paged " << q
     << ", %head_weights pages(%pages) block_table(%block_table) "
        "lengths(%lengths) {k = "
     << spec.k << " : i64, pool_size = " << p << " : i64";
  printLayout(ir, spec.layout);
  ir << "}\n      : (" << query << ", " << weights << ", " << pages << ", "
     << table << ", " << lengths << ") -> " << tokens << "\n";
  ir << "  return %tokens : " << tokens << "\n}\n";
  return Module::parse(ir.str(), status, "<" + spec.name + ">");
}

std::unique_ptr<Module>
indexpool::buildRefinePaged(const RefinePagedSpec &spec, Status &status) {
  status = checkName(spec.name);
  if (status && (spec.queryType == DType::I8 || spec.queryType == DType::I32 ||
                 spec.queryType == DType::I64))
    status = Status::error("queryType must be f32, f16, bf16 or f8E4M3FN");
  if (status)
    status = checkLayout(spec.layout, spec.dim);
  if (status && (spec.batch < -1 || spec.maxPages < -1 ||
                 spec.candidates < -1 || spec.rows < -1 || spec.rows == 0 ||
                 spec.heads < 1 || spec.dim < 1 || spec.k < 1))
    status = Status::error("batch, candidates and maxPages >= 0 or -1 "
                           "(dynamic); rows >= 1 or -1 (dynamic); heads, "
                           "dim, k >= 1");
  if (status && spec.candidates >= 0 && spec.k > spec.candidates)
    status = Status::error("k must be at most candidates = " +
                           std::to_string(spec.candidates) + ", got " +
                           std::to_string(spec.k));
  if (!status)
    return nullptr;
  int64_t b = spec.batch, s = spec.rows, h = spec.heads, d = spec.dim;
  std::string query = tensor({b, s, h, d}, spec.queryType);
  std::string weights = tensor({b, s, h}, DType::F32);
  std::string candidates = tensor({b, s, spec.candidates}, DType::I32);
  std::string pages = pagesType(spec.layout, d);
  std::string table = tensor({b, spec.maxPages}, DType::I32);
  std::string lengths = tensor({b, s}, DType::I32);
  std::string tokens = tensor({b, s, spec.k}, DType::I32);
  std::ostringstream ir;
  ir << "func.func @" << spec.name << "(%query: " << query
     << ", %head_weights: " << weights << ", %candidates: " << candidates
     << ", %pages: " << pages << ", %block_table: " << table
     << ", %lengths: " << lengths << ") -> " << tokens << " {\n";
  std::string q = "%query";
  if (spec.rotate) {
    // The token tier is rotated as the pooled entries are.
    ir << "  %rotated = indexpool.hadamard %query : (" << query << ") -> "
       << query << "\n";
    q = "%rotated";
  }
  ir << "  %tokens = indexpool.refine_paged " << q
     << ", %head_weights, %candidates pages(%pages) "
        "block_table(%block_table) lengths(%lengths) {k = "
     << spec.k << " : i64";
  printLayout(ir, spec.layout);
  ir << "}\n      : (" << query << ", " << weights << ", " << candidates
     << ", " << pages << ", " << table << ", " << lengths << ") -> "
     << tokens << "\n";
  ir << "  return %tokens : " << tokens << "\n}\n";
  return Module::parse(ir.str(), status, "<" + spec.name + ">");
}

std::unique_ptr<Module>
indexpool::buildAppendPaged(const AppendPagedSpec &spec, Status &status) {
  status = checkName(spec.name);
  if (status)
    status = checkPooling(spec.keyType, spec.bias, spec.poolSize, spec.dim);
  if (status)
    status = checkLayout(spec.layout, spec.dim);
  if (status &&
      (spec.batch < -1 || spec.maxPages < -1 || spec.newTokens < -1 ||
       spec.newTokens == 0))
    status = Status::error("batch and maxPages >= 0 or -1 (dynamic); "
                           "newTokens >= 1 or -1 (dynamic)");
  if (!status)
    return nullptr;
  int64_t b = spec.batch, n = spec.newTokens, d = spec.dim,
          p = spec.poolSize;
  bool perChannel = spec.perChannelScores, hasBias = spec.bias != "none";
  std::string keys = tensor({b, n, d}, spec.keyType);
  std::string scores = perChannel ? tensor({b, n, d}, DType::F32)
                                  : tensor({b, n}, DType::F32);
  std::string bias = spec.bias == "channel" ? tensor({p, d}, DType::F32)
                                            : tensor({p}, DType::F32);
  std::string tailKeys = tensor({b, p - 1, d}, spec.keyType);
  std::string tailScores = perChannel ? tensor({b, p - 1, d}, DType::F32)
                                      : tensor({b, p - 1}, DType::F32);
  std::string lengths = tensor({b}, DType::I32);
  std::string pages = pagesType(spec.layout, d);
  std::string table = tensor({b, spec.maxPages}, DType::I32);
  std::string results = pages + ", " + tailKeys + ", " + tailScores;
  std::ostringstream ir;
  ir << "func.func @" << spec.name << "(%keys: " << keys
     << ", %scores: " << scores;
  if (hasBias)
    ir << ", %bias: " << bias;
  ir << ", %tail_keys: " << tailKeys << ", %tail_scores: " << tailScores
     << ", %lengths: " << lengths << ", %pages: " << pages
     << ", %block_table: " << table << ") -> (" << results << ") {\n";
  ir << "  %pages2, %tail_keys2, %tail_scores2 = indexpool.append_paged "
        "%keys, %scores";
  if (hasBias)
    ir << " bias(%bias)";
  ir << " tail(%tail_keys, %tail_scores) lengths(%lengths) into %pages "
        "block_table(%block_table) ";
  printPooling(ir, p, spec.temperature, spec.rotate, spec.pow2Scale);
  printLayout(ir, spec.layout);
  ir << "}\n      : (" << keys << ", " << scores;
  if (hasBias)
    ir << ", " << bias;
  ir << ", " << tailKeys << ", " << tailScores << ", " << lengths << ", "
     << pages << ", " << table << ")\n        -> (" << results << ")\n";
  ir << "  return %pages2, %tail_keys2, %tail_scores2 : " << results
     << "\n}\n";
  return Module::parse(ir.str(), status, "<" + spec.name + ">");
}
