//===- EvaluatorTest.cpp - the reference evaluator over the IR ------------===//
//
// Shapes-only evaluation, the one-line errors for dynamic sizes that break a
// relation, agreement with calling the reference directly, random inputs by
// use, and the per-type tolerances of --verify.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Evaluator/Evaluator.h"

#include "indexpool/Dialect/IndexPoolDialect.h"
#include "indexpool/Reference/Reference.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::indexpool;
using ref::ElementType;
using ref::HostTensor;

namespace {

class EvaluatorTest : public ::testing::Test {
protected:
  EvaluatorTest() {
    context
        .loadDialect<IndexPoolDialect, func::FuncDialect, arith::ArithDialect,
                     tensor::TensorDialect, math::MathDialect>();
  }

  /// Parses `source` (named "test.mlir" in locations) and returns @name.
  func::FuncOp parse(const std::string &source, const std::string &name) {
    module = parseSourceString<ModuleOp>(source, &context, "test.mlir");
    EXPECT_TRUE(module) << source;
    if (!module)
      return nullptr;
    return module->lookupSymbol<func::FuncOp>(name);
  }

  static HostTensor shapeOnly(ElementType type, std::vector<int64_t> shape) {
    return HostTensor{type, std::move(shape), {}};
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  std::mt19937_64 rng{42};
};

constexpr const char *kPoolChain = R"mlir(
func.func @chain(%keys: tensor<?x128xbf16>, %scores: tensor<?xf32>)
    -> (tensor<?x128xf8E4M3FN>, tensor<?xf32>, tensor<?x4xf32>) {
  %pooled, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<?x128xbf16>, tensor<?xf32>) -> (tensor<?x128xbf16>, tensor<?x4xf32>)
  %rotated = indexpool.hadamard %pooled : (tensor<?x128xbf16>) -> tensor<?x128xbf16>
  %codes, %scales = indexpool.quantize %rotated {pow2_scale}
      : (tensor<?x128xbf16>) -> (tensor<?x128xf8E4M3FN>, tensor<?xf32>)
  return %codes, %scales, %w : tensor<?x128xf8E4M3FN>, tensor<?xf32>, tensor<?x4xf32>
}
)mlir";

TEST_F(EvaluatorTest, ShapesOnlyPoolChainGivesGroupsByDim) {
  func::FuncOp func = parse(kPoolChain, "chain");
  ASSERT_TRUE(func);
  std::string error;
  // T = 1027: the tail of 3 tokens is not pooled, G = 256.
  auto results = evaluateFunction(func,
                                  {shapeOnly(ElementType::BF16, {1027, 128}),
                                   shapeOnly(ElementType::F32, {1027})},
                                  error, /*shapesOnly=*/true);
  ASSERT_TRUE(succeeded(results)) << error;
  ASSERT_EQ(results->size(), 3u);
  EXPECT_EQ((*results)[0].shape, (std::vector<int64_t>{256, 128}));
  EXPECT_EQ((*results)[0].type, ElementType::F8E4M3FN);
  EXPECT_TRUE((*results)[0].data.empty());
  EXPECT_EQ((*results)[1].shape, (std::vector<int64_t>{256}));
  EXPECT_EQ((*results)[2].shape, (std::vector<int64_t>{256, 4}));
}

TEST_F(EvaluatorTest, MismatchedDynamicTokensIsOneClearError) {
  func::FuncOp func = parse(kPoolChain, "chain");
  ASSERT_TRUE(func);
  std::string error;
  auto results = evaluateFunction(func,
                                  {shapeOnly(ElementType::BF16, {1024, 128}),
                                   shapeOnly(ElementType::F32, {1000})},
                                  error, /*shapesOnly=*/true);
  EXPECT_TRUE(failed(results));
  EXPECT_EQ(error, "indexpool.pool at test.mlir:4:17: scores must be [T] = "
                   "[1024] or [T, D] = [1024, 128], got [1000]");
  // The same with data.
  error.clear();
  results =
      evaluateFunction(func,
                       {ref::randomNormal(ElementType::BF16, {1024, 128}, rng),
                        ref::randomNormal(ElementType::F32, {1000}, rng)},
                       error);
  EXPECT_TRUE(failed(results));
  EXPECT_NE(error.find("indexpool.pool at test.mlir:4:17: scores must be"),
            std::string::npos)
      << error;
}

TEST_F(EvaluatorTest, DynamicHadamardSizeMustBeAPowerOfTwo) {
  func::FuncOp func = parse(R"mlir(
func.func @h(%x: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %y = indexpool.hadamard %x : (tensor<4x?xf32>) -> tensor<4x?xf32>
  return %y : tensor<4x?xf32>
}
)mlir",
                            "h");
  ASSERT_TRUE(func);
  std::string error;
  EXPECT_TRUE(failed(evaluateFunction(
      func, {shapeOnly(ElementType::F32, {4, 96})}, error, true)));
  EXPECT_NE(error.find("indexpool.hadamard at test.mlir:3:8:"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("power of two"), std::string::npos) << error;
  error.clear();
  EXPECT_TRUE(failed(evaluateFunction(
      func, {shapeOnly(ElementType::F32, {4, 2048})}, error, true)));
  EXPECT_NE(error.find("<= 1024, got 2048"), std::string::npos) << error;
}

TEST_F(EvaluatorTest, StaticResultTypeIsCheckedAgainstDynamicOperands) {
  func::FuncOp func = parse(R"mlir(
func.func @f(%keys: tensor<?x8xf32>, %scores: tensor<?xf32>) -> tensor<16x8xf32> {
  %pooled, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<?x8xf32>, tensor<?xf32>) -> (tensor<16x8xf32>, tensor<16x4xf32>)
  return %pooled : tensor<16x8xf32>
}
)mlir",
                            "f");
  ASSERT_TRUE(func);
  std::string error;
  EXPECT_TRUE(failed(evaluateFunction(
      func,
      {shapeOnly(ElementType::F32, {60, 8}), shapeOnly(ElementType::F32, {60})},
      error, true)));
  EXPECT_EQ(error, "indexpool.pool at test.mlir:3:17: result #0 is [15, 8], "
                   "but its type is tensor<16x8xf32>");
}

TEST_F(EvaluatorTest, InputsAreCheckedAgainstTheArgumentTypes) {
  func::FuncOp func = parse(kPoolChain, "chain");
  ASSERT_TRUE(func);
  std::string error;
  EXPECT_TRUE(failed(evaluateFunction(func,
                                      {shapeOnly(ElementType::BF16, {1024, 64}),
                                       shapeOnly(ElementType::F32, {1024})},
                                      error, true)));
  EXPECT_EQ(error, "argument #0 of @chain has type tensor<?x128xbf16>, but "
                   "the input is [1024, 64] bf16");
  EXPECT_TRUE(failed(evaluateFunction(func,
                                      {shapeOnly(ElementType::F32, {1024, 128}),
                                       shapeOnly(ElementType::F32, {1024})},
                                      error, true)));
  EXPECT_EQ(error, "argument #0 of @chain has type tensor<?x128xbf16>, but "
                   "the input is [1024, 128] f32");
  EXPECT_TRUE(failed(evaluateFunction(
      func, {shapeOnly(ElementType::BF16, {1024, 128})}, error, true)));
  EXPECT_EQ(error, "@chain takes 2 arguments, got 1 inputs");
  // A full evaluation needs data.
  EXPECT_TRUE(failed(evaluateFunction(func,
                                      {shapeOnly(ElementType::BF16, {4, 128}),
                                       shapeOnly(ElementType::F32, {4})},
                                      error)));
  EXPECT_EQ(error, "argument #0 of @chain: the input holds 0 values for "
                   "shape [4, 128]");
}

TEST_F(EvaluatorTest, UnsupportedOpNamesTheOp) {
  func::FuncOp func = parse(R"mlir(
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = math.exp %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
)mlir",
                            "f");
  ASSERT_TRUE(func);
  std::string error;
  EXPECT_TRUE(failed(evaluateFunction(
      func, {ref::randomNormal(ElementType::F32, {4}, rng)}, error)));
  EXPECT_EQ(error, "math.exp at test.mlir:3:8: this op is not supported by "
                   "the reference evaluator");
}

TEST_F(EvaluatorTest, ChainMatchesCallingTheReferenceDirectly) {
  func::FuncOp func = parse(kPoolChain, "chain");
  ASSERT_TRUE(func);
  HostTensor keys = ref::randomNormal(ElementType::BF16, {18, 128}, rng);
  HostTensor scores = ref::randomNormal(ElementType::F32, {18}, rng);
  std::string error;
  auto results = evaluateFunction(func, {keys, scores}, error);
  ASSERT_TRUE(succeeded(results)) << error;

  ref::PoolResult pooled =
      ref::pool(keys, scores, nullptr, 4, 1.0, ElementType::BF16);
  HostTensor rotated = ref::hadamard(pooled.pooled, ElementType::BF16);
  ref::QuantizeResult quantized =
      ref::quantize(rotated, ElementType::F8E4M3FN, /*pow2Scale=*/true);
  EXPECT_EQ((*results)[0].data, quantized.q.data);
  EXPECT_EQ((*results)[1].data, quantized.scale.data);
  EXPECT_EQ((*results)[2].data, pooled.weights.data);
  EXPECT_EQ((*results)[0].shape, (std::vector<int64_t>{4, 128}));

  // And the fused op gives the same (SPEC §3: compress == the chain).
  ref::CompressOptions options;
  options.rotate = true;
  options.pow2Scale = true;
  ref::CompressResult fused = ref::compress(keys, scores, nullptr, options);
  EXPECT_EQ((*results)[0].data, fused.q.data);
}

TEST_F(EvaluatorTest, HandMadePoolIsTheMeanForEqualScores) {
  func::FuncOp func = parse(kPoolChain, "chain");
  ASSERT_TRUE(func);
  // Equal scores: the weights are 1/4 and the pooled key is the mean of the
  // four keys (exact in bf16 here).
  HostTensor keys = HostTensor::zeros(ElementType::BF16, {4, 128});
  for (int64_t t = 0; t < 4; ++t)
    for (int64_t d = 0; d < 128; ++d)
      keys.data[t * 128 + d] = double(t + 1) * (d % 2 ? -1.0 : 1.0);
  HostTensor scores{ElementType::F32, {4}, {0.5, 0.5, 0.5, 0.5}};
  std::string error;
  auto results = evaluateFunction(func, {keys, scores}, error);
  ASSERT_TRUE(succeeded(results)) << error;
  EXPECT_EQ((*results)[2].data, (std::vector<double>{0.25, 0.25, 0.25, 0.25}));
  // pooled = +-2.5; its Hadamard rotation has one nonzero: 2.5 * 128 /
  // sqrt(128) = 2.5 * sqrt(128) at column 1 (the alternating column of H),
  // rounded to bf16, then quantized with a power-of-two scale.
  ref::PoolResult pooled =
      ref::pool(keys, scores, nullptr, 4, 1.0, ElementType::BF16);
  for (int64_t d = 0; d < 128; ++d)
    EXPECT_EQ(pooled.pooled.data[d], d % 2 ? -2.5 : 2.5);
  ref::QuantizeResult quantized =
      ref::quantize(ref::hadamard(pooled.pooled, ElementType::BF16),
                    ElementType::F8E4M3FN, true);
  EXPECT_EQ((*results)[0].data, quantized.q.data);
  EXPECT_EQ((*results)[1].data, quantized.scale.data);
  int nonzero = 0;
  for (double v : (*results)[0].data)
    nonzero += v != 0;
  EXPECT_EQ(nonzero, 1);
}

TEST_F(EvaluatorTest, HugeDynamicSizesAreReportedNotAllocated) {
  func::FuncOp func = parse(R"mlir(
func.func @big(%q: tensor<?x1x4xf32>, %w: tensor<?x1xf32>, %k: tensor<?x4xf32>) -> tensor<?x2xi32> {
  %l = indexpool.score %q, %w, %k : (tensor<?x1x4xf32>, tensor<?x1xf32>, tensor<?x4xf32>) -> tensor<?x?xf32>
  %v, %i = indexpool.topk %l {k = 2 : i64} : (tensor<?x?xf32>) -> (tensor<?x2xf32>, tensor<?x2xi32>)
  return %i : tensor<?x2xi32>
}
)mlir",
                            "big");
  ASSERT_TRUE(func);
  std::string error;
  EXPECT_TRUE(
      failed(evaluateFunction(func,
                              {shapeOnly(ElementType::F32, {100000, 1, 4}),
                               shapeOnly(ElementType::F32, {100000, 1}),
                               shapeOnly(ElementType::F32, {100000, 4})},
                              error, true)));
  EXPECT_EQ(error, "indexpool.score at test.mlir:3:8: a result of shape "
                   "[100000, 100000] is too large for the reference evaluator "
                   "(more than 2^31 elements)");
  EXPECT_TRUE(failed(evaluateFunction(
      func,
      {shapeOnly(ElementType::F32, {int64_t(1) << 40, int64_t(1) << 40, 4}),
       shapeOnly(ElementType::F32, {1, 1}),
       shapeOnly(ElementType::F32, {1, 4})},
      error, true)));
  EXPECT_NE(error.find("more than 2^31 elements"), std::string::npos) << error;
}

constexpr const char *kSelection = R"mlir(
func.func @sel(%q: tensor<2x3x16xbf16>, %w: tensor<2x3xf32>,
               %keys: tensor<?x16xi8>, %s: tensor<?xf32>, %len: tensor<2xi32>)
    -> (tensor<2x8xi32>, tensor<2x4xf32>, tensor<2x8xi32>, tensor<2x4xi32>) {
  %logits = indexpool.score %q, %w, %keys scales(%s)
      : (tensor<2x3x16xbf16>, tensor<2x3xf32>, tensor<?x16xi8>, tensor<?xf32>) -> tensor<2x?xf32>
  %vals, %idx = indexpool.topk %logits valid(%len) {k = 4 : i64}
      : (tensor<2x?xf32>, tensor<2xi32>) -> (tensor<2x4xf32>, tensor<2x4xi32>)
  %tok = indexpool.expand %idx {pool_size = 2 : i64} : (tensor<2x4xi32>) -> tensor<2x8xi32>
  %fused = indexpool.select %q, %w, %keys scales(%s) valid(%len) {k = 4 : i64, pool_size = 2 : i64}
      : (tensor<2x3x16xbf16>, tensor<2x3xf32>, tensor<?x16xi8>, tensor<?xf32>, tensor<2xi32>) -> tensor<2x8xi32>
  %v2, %plain = indexpool.topk %vals {k = 4 : i64}
      : (tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xi32>)
  return %tok, %vals, %fused, %plain : tensor<2x8xi32>, tensor<2x4xf32>, tensor<2x8xi32>, tensor<2x4xi32>
}
)mlir";

TEST_F(EvaluatorTest, SelectionMatchesTheReferenceWithContexts) {
  func::FuncOp func = parse(kSelection, "sel");
  ASSERT_TRUE(func);
  std::string error;
  auto inputs = generateRandomInputs(
      func, {{2, 3, 16}, {2, 3}, {40, 16}, {40}, {2}}, /*seed=*/3, error);
  ASSERT_TRUE(succeeded(inputs)) << error;
  auto run = evaluateReference(func, *inputs, error);
  ASSERT_TRUE(succeeded(run)) << error;
  const std::vector<HostTensor> &in = *inputs;

  HostTensor logits = ref::score(in[0], in[1], in[2], &in[3]);
  ref::TopKResult top = ref::topk(logits, &in[4], 4);
  EXPECT_EQ(run->results[0].data, ref::expand(top.indices, 2).data);
  EXPECT_EQ(run->results[1].data, top.values.data);
  EXPECT_EQ(run->results[2].data, run->results[0].data);
  // Contexts: the expand of a scored topk and the select have one, the topk
  // values (f32) and a topk of an unscored tensor do not.
  ASSERT_EQ(run->selections.size(), 4u);
  ASSERT_TRUE(run->selections[0].has_value());
  EXPECT_EQ(run->selections[0]->poolSize, 2);
  EXPECT_EQ(run->selections[0]->logits.data, logits.data);
  ASSERT_TRUE(run->selections[0]->valid.has_value());
  EXPECT_EQ(run->selections[0]->valid->data, in[4].data);
  EXPECT_FALSE(run->selections[1].has_value());
  ASSERT_TRUE(run->selections[2].has_value());
  EXPECT_EQ(run->selections[2]->logits.data, logits.data);
  EXPECT_FALSE(run->selections[3].has_value());
}

TEST_F(EvaluatorTest, ElementwiseArithRoundsAndWraps) {
  func::FuncOp func = parse(R"mlir(
func.func @f(%x: tensor<3xbf16>, %i: tensor<2xi32>) -> (tensor<3xbf16>, tensor<2xi32>, tensor<?xf32>) {
  %c = arith.constant dense<[1.0, 2.5, 1.0]> : tensor<3xbf16>
  %y = arith.addf %x, %c : tensor<3xbf16>
  %big = arith.constant dense<2147483647> : tensor<2xi32>
  %wrap = arith.addi %i, %big : tensor<2xi32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<3xbf16>
  %e = tensor.empty(%n) : tensor<?xf32>
  return %y, %wrap, %e : tensor<3xbf16>, tensor<2xi32>, tensor<?xf32>
}
)mlir",
                            "f");
  ASSERT_TRUE(func);
  std::string error;
  // 256 + 1 is not a bf16 (8 bits of precision): the tie rounds to even,
  // 256; i32 addition wraps around.
  auto results =
      evaluateFunction(func,
                       {HostTensor{ElementType::BF16, {3}, {0.5, 0.25, 256.0}},
                        HostTensor{ElementType::I32, {2}, {1, -1}}},
                       error);
  ASSERT_TRUE(succeeded(results)) << error;
  EXPECT_EQ((*results)[0].data, (std::vector<double>{1.5, 2.75, 256.0}));
  EXPECT_EQ((*results)[1].data,
            (std::vector<double>{-2147483648.0, 2147483646.0}));
  EXPECT_EQ((*results)[2].shape, (std::vector<int64_t>{3}));
}

//===----------------------------------------------------------------------===//
// Random inputs
//===----------------------------------------------------------------------===//

TEST_F(EvaluatorTest, InputsAreDescribedByTheirUse) {
  func::FuncOp func = parse(kSelection, "sel");
  ASSERT_TRUE(func);
  std::vector<InputDescription> descriptions = describeInputs(func);
  ASSERT_EQ(descriptions.size(), 5u);
  EXPECT_EQ(descriptions[0].distribution, InputDistribution::Normal);
  EXPECT_EQ(descriptions[1].distribution, InputDistribution::Normal);
  EXPECT_EQ(descriptions[2].distribution, InputDistribution::QuantizedCodes);
  EXPECT_EQ(descriptions[3].distribution, InputDistribution::PositiveScales);
  EXPECT_EQ(descriptions[4].distribution, InputDistribution::ValidLengths);
  EXPECT_EQ(descriptions[4].use, "valid of indexpool.topk at test.mlir:7:17");
  EXPECT_EQ(descriptions[2].use, "keys of indexpool.score at test.mlir:5:13");
}

TEST_F(EvaluatorTest, RandomInputsAreRealistic) {
  func::FuncOp func = parse(R"mlir(
func.func @f(%q: tensor<1x2x8xf32>, %w: tensor<1x2xf32>, %keys: tensor<?x8xf8E4M3FN>,
             %s: tensor<?xf32>, %len: tensor<64xi32>, %idx: tensor<64x4xi32>,
             %other: tensor<64xi32>, %codes: tensor<64x8xi8>, %cs: tensor<64xf32>)
    -> (tensor<64x16xi32>, tensor<1x?xf32>, tensor<64x8xf32>) {
  %logits = indexpool.score %q, %w, %keys scales(%s)
      : (tensor<1x2x8xf32>, tensor<1x2xf32>, tensor<?x8xf8E4M3FN>, tensor<?xf32>) -> tensor<1x?xf32>
  %logits2 = indexpool.score %q, %w, %keys scales(%s)
      : (tensor<1x2x8xf32>, tensor<1x2xf32>, tensor<?x8xf8E4M3FN>, tensor<?xf32>) -> tensor<1x?xf32>
  %tok = indexpool.expand %idx {pool_size = 4 : i64} : (tensor<64x4xi32>) -> tensor<64x16xi32>
  %d = indexpool.dequantize %codes, %cs : (tensor<64x8xi8>, tensor<64xf32>) -> tensor<64x8xf32>
  %t = indexpool.select %q, %w, %keys scales(%s) {k = 2 : i64, pool_size = 4 : i64}
      : (tensor<1x2x8xf32>, tensor<1x2xf32>, tensor<?x8xf8E4M3FN>, tensor<?xf32>) -> tensor<1x8xi32>
  %big = tensor.empty() : tensor<64x37xf32>
  %v, %i = indexpool.topk %big valid(%len) {k = 4 : i64}
      : (tensor<64x37xf32>, tensor<64xi32>) -> (tensor<64x4xf32>, tensor<64x4xi32>)
  return %tok, %logits, %d : tensor<64x16xi32>, tensor<1x?xf32>, tensor<64x8xf32>
}
)mlir",
                            "f");
  ASSERT_TRUE(func);
  std::string error;
  std::vector<std::vector<int64_t>> shapes = {
      {1, 2, 8}, {1, 2}, {300, 8}, {300}, {64}, {64, 4}, {64}, {64, 8}, {64}};
  auto inputs = generateRandomInputs(func, shapes, /*seed=*/5, error);
  ASSERT_TRUE(succeeded(inputs)) << error;
  const std::vector<HostTensor> &in = *inputs;
  ASSERT_EQ(in.size(), 9u);
  for (auto [i, t] : llvm::enumerate(in)) {
    EXPECT_EQ(t.shape, shapes[i]) << i;
    EXPECT_EQ(t.data.size(), size_t(t.numElements())) << i;
    bool allZero = true;
    for (double v : t.data)
      allZero = allZero && v == 0;
    EXPECT_FALSE(allZero) << "input " << i << " is all zeros";
  }
  // f8 keys: valid codes spread over the format, within +-448.
  double maxKey = 0;
  for (double v : in[2].data) {
    EXPECT_EQ(v, ref::roundToF8E4M3FN(v));
    maxKey = std::max(maxKey, std::fabs(v));
  }
  EXPECT_LE(maxKey, 448);
  EXPECT_GT(maxKey, 100);
  for (double v : in[3].data) {
    EXPECT_GE(v, 1e-3 * (1 - 1e-6));
    EXPECT_LE(v, 1e-2 * (1 + 1e-6));
  }
  for (double v : in[8].data) // dequantize scales
    EXPECT_GT(v, 0);
  // Valid lengths of the topk over 37 columns.
  bool full = false;
  for (double v : in[4].data) {
    EXPECT_GE(v, 0);
    EXPECT_LE(v, 37);
    full = full || v == 37;
  }
  EXPECT_TRUE(full);
  for (double v : in[5].data) {
    EXPECT_GE(v, -1);
    EXPECT_LE(v, 1000);
  }
  for (double v : in[6].data) {
    EXPECT_GE(v, 0);
    EXPECT_LE(v, 100);
  }
  for (double v : in[7].data) {
    EXPECT_GE(v, -127);
    EXPECT_LE(v, 127);
    EXPECT_EQ(v, std::round(v));
  }
  EXPECT_EQ(in[7].type, ElementType::I8);

  // One seed, one set of inputs.
  auto again = generateRandomInputs(func, shapes, 5, error);
  ASSERT_TRUE(succeeded(again));
  for (size_t i = 0; i < in.size(); ++i)
    EXPECT_EQ((*again)[i].data, in[i].data) << i;
  auto other = generateRandomInputs(func, shapes, 6, error);
  ASSERT_TRUE(succeeded(other));
  EXPECT_NE((*other)[0].data, in[0].data);

  // Shapes that break a relation fail before anything is drawn.
  shapes[3] = {299};
  EXPECT_TRUE(failed(generateRandomInputs(func, shapes, 5, error)));
  EXPECT_EQ(error, "indexpool.score at test.mlir:6:13: scales must be [N] = "
                   "[300], got [299]");
}

//===----------------------------------------------------------------------===//
// Tolerances
//===----------------------------------------------------------------------===//

TEST(CompareTest, F32IsNormwise) {
  HostTensor r{ElementType::F32, {4}, {1.0, -100.0, 0.0, -INFINITY}};
  HostTensor a = r;
  a.data[0] += 5e-4; // 5e-6 of max |r| = 100
  Comparison ok = compareWithReference(a, r);
  EXPECT_TRUE(ok.ok) << ok.reason;
  EXPECT_EQ(ok.differing, 1);
  EXPECT_NEAR(ok.normwiseRelError, 5e-6, 1e-12);
  EXPECT_NEAR(ok.maxRelError, 5e-4, 1e-12);
  a.data[2] = 2e-3; // 2e-5 normwise, infinitely far elementwise
  Comparison bad = compareWithReference(a, r);
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(bad.reason, "normwise_rel_err 2e-05 > 1e-05");
  EXPECT_EQ(formatComparison(bad, ElementType::F32),
            "max_abs_err=0.002 max_rel_err=inf normwise_rel_err=2e-05 "
            "differing=2/4 (50%) -> FAILED: normwise_rel_err 2e-05 > 1e-05");
  a = r;
  a.data[3] = INFINITY;
  EXPECT_FALSE(compareWithReference(a, r).ok);
  a.data[3] = std::nan("");
  EXPECT_FALSE(compareWithReference(a, r).ok);
}

TEST(CompareTest, HalfTypesAllowOneUlpPlusOneUlpOfTheLargest) {
  // bf16: ulp(1.0) = 2^-7, ulp(3.0) = 2^-6 = 0.015625 and max|r| = 3, so the
  // allowance is ulp(r) + 2^-6.
  HostTensor r{ElementType::BF16, {3}, {1.0, 3.0, 0.0}};
  HostTensor a{ElementType::BF16, {3}, {1.0 + 0.0078125, 3.0, 0.0}};
  Comparison c = compareWithReference(a, r);
  EXPECT_TRUE(c.ok) << c.reason;
  EXPECT_EQ(c.maxUlpError, 1);
  EXPECT_EQ(c.beyondOneUlp, 0);
  a.data[1] = 3.0 + 2 * 0.015625; // 2 ulp = ulp(3) + ulp(max)
  c = compareWithReference(a, r);
  EXPECT_TRUE(c.ok) << c.reason;
  EXPECT_EQ(c.beyondOneUlp, 1);
  a.data[1] = 3.0 + 3 * 0.015625; // 3 ulp
  c = compareWithReference(a, r);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.maxUlpError, 3);
  // A sum that cancels: 1e-3 next to 100 (ulp 0.5) may be 0.2 off.
  HostTensor rc{ElementType::BF16, {2}, {100.0, ref::roundToBF16(1e-3)}};
  HostTensor ac = rc;
  ac.data[1] = 0.2;
  c = compareWithReference(ac, rc);
  EXPECT_TRUE(c.ok) << c.reason;
  EXPECT_EQ(c.beyondOneUlp, 1);
  ac.data[1] = 0.75;
  EXPECT_FALSE(compareWithReference(ac, rc).ok);
  // f16 subnormals: ulp 2^-24 around zero, max|r| = 0 adds another 2^-24.
  HostTensor rf{ElementType::F16, {1}, {0.0}};
  HostTensor af{ElementType::F16, {1}, {std::ldexp(1.0, -23)}};
  EXPECT_TRUE(compareWithReference(af, rf).ok);
  af.data[0] = std::ldexp(1.0, -22);
  EXPECT_FALSE(compareWithReference(af, rf).ok);
}

TEST(CompareTest, QuantizedCodesAllowFewOffByOne) {
  HostTensor r = HostTensor::zeros(ElementType::F8E4M3FN, {2000});
  for (size_t i = 0; i < r.data.size(); ++i)
    r.data[i] = ref::decodeF8E4M3FN(uint8_t(i % 0x7E));
  HostTensor a = r;
  // 2 of 2000 = 0.1%: one code up (1.0 -> 1.125), one across zero.
  a.data[56] = 1.125;
  ASSERT_EQ(r.data[56], 1.0);
  a.data[0] = ref::decodeF8E4M3FN(0x81); // -smallest subnormal vs +0
  Comparison c = compareWithReference(a, r);
  EXPECT_TRUE(c.ok) << c.reason;
  EXPECT_EQ(c.offByOne, 2);
  EXPECT_EQ(formatComparison(c, ElementType::F8E4M3FN),
            "max_abs_err=0.125 max_rel_err=inf differing=2/2000 (0.1%) "
            "off_by_one=2 beyond_one_code=0 -> ok");
  a.data[57] = r.data[57] == 1.125 ? 1.25 : ref::decodeF8E4M3FN(57 + 1);
  c = compareWithReference(a, r);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.reason, "differing codes 3 > 0.1% of 2000");
  // Two codes away but within 2^-8 * 448 = 1.75: a small code moved by a
  // one-ulp difference upstream.
  a = r;
  a.data[56] = 1.25;
  c = compareWithReference(a, r);
  EXPECT_TRUE(c.ok) << c.reason;
  EXPECT_EQ(c.beyondOneCode, 1);
  a.data[56] = 4.0; // 3 away: more than 1.75
  EXPECT_FALSE(compareWithReference(a, r).ok);
  // Opposite signs are never one code apart.
  a = r;
  a.data[56] = -1.0;
  EXPECT_FALSE(compareWithReference(a, r).ok);

  HostTensor ri{ElementType::I8, {1000}, std::vector<double>(1000, 3.0)};
  HostTensor ai = ri;
  ai.data[7] = 4;
  EXPECT_TRUE(compareWithReference(ai, ri).ok);
  ai.data[8] = 2;
  EXPECT_FALSE(compareWithReference(ai, ri).ok); // 2 of 1000 > 0.1%
}

TEST(CompareTest, IndicesAllowOnlyNearTieSwaps) {
  // Row 0 logits: columns 1 and 2 tie within 1e-5 relative.
  SelectionContext selection;
  selection.logits =
      HostTensor{ElementType::F32, {1, 4}, {0.5, 2.0, 2.0 + 1e-6, 1.0}};
  HostTensor r{ElementType::I32, {1, 3}, {2, 1, 3}};
  HostTensor a{ElementType::I32, {1, 3}, {1, 2, 3}};
  Comparison c = compareWithReference(a, r, &selection);
  EXPECT_TRUE(c.ok) << c.reason;
  EXPECT_EQ(c.nearTieSwaps, 2);
  EXPECT_EQ(c.differing, 2);
  EXPECT_EQ(formatComparison(c, ElementType::I32),
            "max_abs_err=1 max_rel_err=1 differing=2/3 (66.67%) "
            "near_tie_swaps=2 -> ok");
  // Without the context indices must be equal.
  EXPECT_FALSE(compareWithReference(a, r).ok);
  // A real error: column 0 instead of column 3.
  a = HostTensor{ElementType::I32, {1, 3}, {2, 1, 0}};
  c = compareWithReference(a, r, &selection);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.reason, "row 0 slot 2: index 0 (logit 0.5) instead of 3 "
                      "(logit 1)");
  // The same column twice is never a near tie.
  a = HostTensor{ElementType::I32, {1, 3}, {2, 2, 3}};
  EXPECT_FALSE(compareWithReference(a, r, &selection).ok);
  // Columns beyond the valid length are never selectable.
  selection.valid = HostTensor{ElementType::I32, {1}, {3}};
  r = HostTensor{ElementType::I32, {1, 3}, {2, 1, 0}};
  selection.logits.data[3] = 0.5;
  a = HostTensor{ElementType::I32, {1, 3}, {2, 1, 3}};
  c = compareWithReference(a, r, &selection);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.reason, "row 0 slot 2: index 3 is outside the 3 valid columns");
}

TEST(CompareTest, ExpandedIndicesSwapWholePools) {
  SelectionContext selection;
  selection.logits = HostTensor{ElementType::F32, {1, 3}, {1.0, 1.0, 0.0}};
  selection.poolSize = 2;
  HostTensor r{ElementType::I32, {1, 6}, {0, 1, 2, 3, -1, -1}};
  HostTensor a{ElementType::I32, {1, 6}, {2, 3, 0, 1, -1, -1}};
  Comparison c = compareWithReference(a, r, &selection);
  EXPECT_TRUE(c.ok) << c.reason;
  EXPECT_EQ(c.nearTieSwaps, 2);
  EXPECT_EQ(c.differing, 4);
  // Not an expansion of one pool.
  a = HostTensor{ElementType::I32, {1, 6}, {2, 1, 0, 3, -1, -1}};
  c = compareWithReference(a, r, &selection);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.reason, "row 0 slot 0: 1 is not an expansion of one pool");
  // -1 where the reference has a pool.
  a = HostTensor{ElementType::I32, {1, 6}, {0, 1, -1, -1, -1, -1}};
  EXPECT_FALSE(compareWithReference(a, r, &selection).ok);
}

} // namespace
