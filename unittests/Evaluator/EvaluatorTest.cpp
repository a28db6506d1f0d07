//===- EvaluatorTest.cpp - the reference evaluator over the IR ------------===//
//
// Shapes-only evaluation, the one-line errors for dynamic sizes that break a
// relation, agreement with calling the reference directly and random inputs
// by use. The tolerances of --verify are tested in unittests/Runtime
// (CompareTest.cpp), where they live now.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Evaluator/Evaluator.h"

#include "indexpool/Dialect/IndexPoolDialect.h"
#include "indexpool/Reference/Reference.h"
#include "indexpool/Runtime/ReferenceRun.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
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
                     tensor::TensorDialect, math::MathDialect, scf::SCFDialect,
                     bufferization::BufferizationDialect>();
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

TEST_F(EvaluatorTest, SpecializeShapesMakesEveryTypeStatic) {
  func::FuncOp func = parse(kPoolChain, "chain");
  ASSERT_TRUE(func);
  std::string error;
  ASSERT_TRUE(succeeded(specializeShapes(func, {{1027, 128}, {1027}}, error)))
      << error;
  auto tensor = [&](ArrayRef<int64_t> shape, Type element) -> Type {
    return RankedTensorType::get(shape, element);
  };
  Builder b(&context);
  Type f8 = b.getType<Float8E4M3FNType>();
  EXPECT_EQ(func.getFunctionType(),
            b.getFunctionType({tensor({1027, 128}, b.getBF16Type()),
                               tensor({1027}, b.getF32Type())},
                              {tensor({256, 128}, f8),
                               tensor({256}, b.getF32Type()),
                               tensor({256, 4}, b.getF32Type())}));
  // Every value in the body too, and the IR still verifies.
  func.walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      if (auto shaped = dyn_cast<ShapedType>(t))
        EXPECT_TRUE(shaped.hasStaticShape())
            << op->getName().getStringRef().str();
  });
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(EvaluatorTest, SpecializeShapesChecksTheSizesFirst) {
  func::FuncOp func = parse(kPoolChain, "chain");
  ASSERT_TRUE(func);
  std::string error;
  EXPECT_TRUE(failed(specializeShapes(func, {{1024, 128}, {1000}}, error)));
  EXPECT_NE(error.find("scores must be [T] = [1024]"), std::string::npos)
      << error;
  // Nothing changed.
  EXPECT_FALSE(cast<ShapedType>(func.getArgumentTypes()[0]).hasStaticShape());
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
  // The verifier's rule and message, applied to the run-time size.
  EXPECT_NE(error.find("input's last dimension D must be a power of two <= "
                       "1024 to be rotated, got 2048"),
            std::string::npos)
      << error;
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
  // The verifier's message, as for static keys of 60 rows.
  EXPECT_EQ(error, "indexpool.pool at test.mlir:3:17: result 'pooled' "
                   "dimension 0 must be G = floor(T / P) = 15, got 16");
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

  // And the fused op gives the same (compress == the chain, docs/IndexPoolOps.md).
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

// indexpool-launch runs a manifest's "computes" with the runtime's reference
// run: for the same function it must draw the same random inputs (argument i
// = input i) and compute the same results and selection contexts as the
// evaluator over the IR.
TEST_F(EvaluatorTest, ManifestRunsAgreeWithTheEvaluator) {
  func::FuncOp func = parse(R"mlir(
func.func @f(%keys: tensor<64x16xbf16>, %scores: tensor<64x16xf32>,
             %q: tensor<2x3x16xf32>, %w: tensor<2x3xf32>, %len: tensor<2xi32>,
             %c: tensor<4x16xi8>, %cs: tensor<4xf32>, %idx: tensor<2x3xi32>)
    -> (tensor<16x16xf8E4M3FN>, tensor<16xf32>, tensor<2x16xi32>,
        tensor<4x16xf32>, tensor<2x12xi32>) {
  %codes, %scales, %weights = indexpool.compress %keys, %scores {pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<64x16xbf16>, tensor<64x16xf32>) -> (tensor<16x16xf8E4M3FN>, tensor<16xf32>, tensor<16x4x16xf32>)
  %tok = indexpool.select %q, %w, %codes scales(%scales) valid(%len) {k = 4 : i64, pool_size = 4 : i64}
      : (tensor<2x3x16xf32>, tensor<2x3xf32>, tensor<16x16xf8E4M3FN>, tensor<16xf32>, tensor<2xi32>) -> tensor<2x16xi32>
  %d = indexpool.dequantize %c, %cs : (tensor<4x16xi8>, tensor<4xf32>) -> tensor<4x16xf32>
  %e = indexpool.expand %idx {pool_size = 4 : i64} : (tensor<2x3xi32>) -> tensor<2x12xi32>
  return %codes, %scales, %tok, %d, %e
      : tensor<16x16xf8E4M3FN>, tensor<16xf32>, tensor<2x16xi32>, tensor<4x16xf32>, tensor<2x12xi32>
}
)mlir",
                            "f");
  ASSERT_TRUE(func);
  namespace rt = ::indexpool::runtime;
  rt::Manifest manifest;
  std::string error;
  ASSERT_TRUE(rt::parseManifest(R"({
  "format_version": 2, "chip": "sm_90", "function": "f",
  "binary": {"path": "f.ptx", "format": "ptx"},
  "buffers": [
    {"id": 0, "role": "input", "index": 0, "type": "bf16", "shape": [64, 16]},
    {"id": 1, "role": "input", "index": 1, "type": "f32", "shape": [64, 16]},
    {"id": 2, "role": "input", "index": 2, "type": "f32", "shape": [2, 3, 16]},
    {"id": 3, "role": "input", "index": 3, "type": "f32", "shape": [2, 3]},
    {"id": 4, "role": "input", "index": 4, "type": "i32", "shape": [2]},
    {"id": 5, "role": "input", "index": 5, "type": "i8", "shape": [4, 16]},
    {"id": 6, "role": "input", "index": 6, "type": "f32", "shape": [4]},
    {"id": 7, "role": "input", "index": 7, "type": "i32", "shape": [2, 3]},
    {"id": 8, "role": "output", "index": 0, "type": "f8E4M3FN", "shape": [16, 16]},
    {"id": 9, "role": "output", "index": 1, "type": "f32", "shape": [16]},
    {"id": 10, "role": "output", "index": 2, "type": "i32", "shape": [2, 16]},
    {"id": 11, "role": "output", "index": 3, "type": "f32", "shape": [4, 16]},
    {"id": 12, "role": "output", "index": 4, "type": "i32", "shape": [2, 12]},
    {"id": 13, "role": "temporary", "type": "f32", "shape": [16, 4, 16]}
  ],
  "launches": [],
  "computes": [
    {"op": "compress", "operands": {"keys": 0, "scores": 1}, "results": [8, 9, 13],
     "properties": {"pool_size": 4, "rotate": true, "pow2_scale": true}},
    {"op": "select", "operands": {"query": 2, "weights": 3, "keys": 8, "scales": 9,
                                  "valid": 4},
     "results": [10], "properties": {"k": 4, "pool_size": 4}},
    {"op": "dequantize", "operands": {"codes": 5, "scales": 6}, "results": [11]},
    {"op": "expand", "operands": {"indices": 7}, "results": [12],
     "properties": {"pool_size": 4}}
  ]})",
                                "f.json", ".", manifest, error))
      << error;

  std::vector<std::vector<int64_t>> shapes;
  for (const rt::Buffer *b : manifest.inputs())
    shapes.push_back(b->shape);
  auto fromIR = generateRandomInputs(func, shapes, /*seed=*/21, error);
  ASSERT_TRUE(succeeded(fromIR)) << error;
  std::vector<HostTensor> fromManifest = rt::generateRandomInputs(manifest, 21);
  ASSERT_EQ(fromManifest.size(), fromIR->size());
  for (size_t i = 0; i < fromManifest.size(); ++i) {
    EXPECT_EQ(fromManifest[i].type, (*fromIR)[i].type) << i;
    EXPECT_EQ(fromManifest[i].data, (*fromIR)[i].data) << i;
  }

  FailureOr<ReferenceRun> expected = evaluateReference(func, *fromIR, error);
  ASSERT_TRUE(succeeded(expected)) << error;
  rt::ReferenceValues values;
  ASSERT_TRUE(rt::runReference(manifest, fromManifest, values, error)) << error;
  std::vector<const rt::Buffer *> outputs = manifest.outputs();
  ASSERT_EQ(outputs.size(), expected->results.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    EXPECT_EQ(values.at(outputs[i]->id).data, expected->results[i].data) << i;
    std::optional<SelectionContext> context =
        rt::selectionContextOf(manifest, values, outputs[i]->id);
    ASSERT_EQ(context.has_value(), expected->selections[i].has_value()) << i;
    if (context) {
      EXPECT_EQ(context->logits.data, expected->selections[i]->logits.data);
      EXPECT_EQ(context->poolSize, expected->selections[i]->poolSize);
      EXPECT_EQ(context->valid->data, expected->selections[i]->valid->data);
    }
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// Dynamic sizes obey the verifier's rules, with its messages
//===----------------------------------------------------------------------===//

constexpr const char *kDynamicTopK = R"mlir(
func.func @t(%l: tensor<2x?xf32>) -> tensor<2x4xi32> {
  %v, %i = indexpool.topk %l {k = 4 : i64} : (tensor<2x?xf32>) -> (tensor<2x4xf32>, tensor<2x4xi32>)
  return %i : tensor<2x4xi32>
}
)mlir";

// k <= N always: a dynamic N below k is rejected like a static one (the
// verifier says the same for tensor<2x3xf32>), shapes only and with data.
TEST_F(EvaluatorTest, DynamicColumnsBelowKAreRejectedLikeStaticOnes) {
  func::FuncOp func = parse(kDynamicTopK, "t");
  ASSERT_TRUE(func);
  const char *expected = "indexpool.topk at test.mlir:3:12: k must be at most "
                         "N = 3 (the number of columns), got 4";
  std::string error;
  EXPECT_TRUE(failed(evaluateFunction(
      func, {shapeOnly(ElementType::F32, {2, 3})}, error, true)));
  EXPECT_EQ(error, expected);
  error.clear();
  EXPECT_TRUE(failed(evaluateFunction(
      func, {ref::randomNormal(ElementType::F32, {2, 3}, rng)}, error)));
  EXPECT_EQ(error, expected);
  // N = k is fine; a padded run needs `valid`, not a short row.
  error.clear();
  auto results = evaluateFunction(
      func, {ref::randomNormal(ElementType::F32, {2, 4}, rng)}, error);
  ASSERT_TRUE(succeeded(results)) << error;
  EXPECT_EQ((*results)[0].shape, (std::vector<int64_t>{2, 4}));

  // The verifier, for the static type, words it identically.
  OwningOpRef<ModuleOp> fixed;
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  fixed = parseSourceString<ModuleOp>(R"mlir(
func.func @t(%l: tensor<2x3xf32>) {
  %v, %i = indexpool.topk %l {k = 4 : i64} : (tensor<2x3xf32>) -> (tensor<2x4xf32>, tensor<2x4xi32>)
  return
}
)mlir",
                                      &context);
  EXPECT_FALSE(fixed);
  EXPECT_EQ(message, "'indexpool.topk' op k must be at most N = 3 (the number "
                     "of columns), got 4");
}

TEST_F(EvaluatorTest, DynamicSizesBeyondTheI32IndicesAreRejected) {
  func::FuncOp func = parse(R"mlir(
func.func @s(%q: tensor<1x1x1xf32>, %w: tensor<1x1xf32>, %k: tensor<?x1xf32>) -> tensor<1x8xi32> {
  %t = indexpool.select %q, %w, %k {k = 2 : i64, pool_size = 4 : i64}
      : (tensor<1x1x1xf32>, tensor<1x1xf32>, tensor<?x1xf32>) -> tensor<1x8xi32>
  return %t : tensor<1x8xi32>
}
)mlir",
                            "s");
  ASSERT_TRUE(func);
  std::string error;
  // 2^29 pools of P = 4: token indices up to 2^31 - 1, the largest allowed.
  EXPECT_TRUE(succeeded(
      evaluateFunction(func,
                       {shapeOnly(ElementType::F32, {1, 1, 1}),
                        shapeOnly(ElementType::F32, {1, 1}),
                        shapeOnly(ElementType::F32, {int64_t(1) << 29, 1})},
                       error, true)))
      << error;
  // One pool more and the last token index would wrap.
  EXPECT_TRUE(failed(evaluateFunction(
      func,
      {shapeOnly(ElementType::F32, {1, 1, 1}),
       shapeOnly(ElementType::F32, {1, 1}),
       shapeOnly(ElementType::F32, {(int64_t(1) << 29) + 1, 1})},
      error, true)));
  EXPECT_EQ(error, "indexpool.select at test.mlir:3:8: N * P = 536870913 * 4 "
                   "= 2147483652 tokens do not fit the i32 token indices (at "
                   "most 2^31)");

  func = parse(R"mlir(
func.func @t(%l: tensor<?x?xf32>) -> tensor<?x4xi32> {
  %v, %i = indexpool.topk %l {k = 4 : i64} : (tensor<?x?xf32>) -> (tensor<?x4xf32>, tensor<?x4xi32>)
  return %i : tensor<?x4xi32>
}
)mlir",
               "t");
  ASSERT_TRUE(func);
  EXPECT_TRUE(failed(evaluateFunction(
      func, {shapeOnly(ElementType::F32, {1, int64_t(1) << 31})}, error,
      true)));
  EXPECT_EQ(error, "indexpool.topk at test.mlir:3:12: N = 2147483648 columns "
                   "do not fit the i32 column indices (at most 2^31 - 1)");
}

TEST_F(EvaluatorTest, DynamicContradictionsAreCaughtByTheSameRules) {
  // Static sizes that agree with each other but not with the run-time T.
  func::FuncOp func = parse(R"mlir(
func.func @f(%k: tensor<?x8xf32>, %p: tensor<?x8xf32>) -> tensor<16x8xf32> {
  %r = indexpool.residual %k, %p {pool_size = 4 : i64}
      : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}
)mlir",
                            "f");
  ASSERT_TRUE(func);
  std::string error;
  EXPECT_TRUE(failed(evaluateFunction(func,
                                      {shapeOnly(ElementType::F32, {20, 8}),
                                       shapeOnly(ElementType::F32, {5, 8})},
                                      error, true)));
  EXPECT_EQ(error, "indexpool.residual at test.mlir:3:8: result dimension 0 "
                   "must be G*P = 20, got 16");
}

TEST_F(EvaluatorTest, SizeArithmeticOverflowIsAnError) {
  func::FuncOp func = parse(R"mlir(
func.func @e() -> tensor<?xf32> {
  %a = arith.constant 4611686018427387904 : index
  %b = arith.constant 4 : index
  %n = arith.muli %a, %b : index
  %t = tensor.empty(%n) : tensor<?xf32>
  return %t : tensor<?xf32>
}
)mlir",
                            "e");
  ASSERT_TRUE(func);
  std::string error;
  EXPECT_TRUE(failed(evaluateFunction(func, {}, error, true)));
  EXPECT_EQ(error, "arith.muli at test.mlir:5:8: 4611686018427387904 and 4: "
                   "the result overflows int64");
}

//===----------------------------------------------------------------------===//
// scf.for
//===----------------------------------------------------------------------===//

// Row i of the result is the running sum of rows 0..i of x, through a
// tensor iter_arg (the sum), an index iter_arg (the next row, i + 1 from a
// cast of the induction variable: the row count in the end) and an
// insert_slice per step.
constexpr const char *kRunningSum = R"mlir(
func.func @sums(%x: tensor<?x4xf32>)
    -> (tensor<?x4xf32>, tensor<1x4xf32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c0 : tensor<?x4xf32>
  %zero = arith.constant dense<0.0> : tensor<1x4xf32>
  %out = tensor.empty(%n) : tensor<?x4xf32>
  %r:3 = scf.for %i = %c0 to %n step %c1
      iter_args(%sum = %zero, %acc = %out, %next = %c0)
      -> (tensor<1x4xf32>, tensor<?x4xf32>, index) {
    %row = tensor.extract_slice %x[%i, 0] [1, 4] [1, 1]
        : tensor<?x4xf32> to tensor<1x4xf32>
    %s = arith.addf %sum, %row : tensor<1x4xf32>
    %acc2 = tensor.insert_slice %s into %acc[%i, 0] [1, 4] [1, 1]
        : tensor<1x4xf32> into tensor<?x4xf32>
    %i32 = arith.index_cast %i : index to i32
    %back = arith.index_cast %i32 : i32 to index
    %next2 = arith.addi %back, %c1 : index
    %kept = bufferization.materialize_in_destination %s in %sum
        : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    scf.yield %kept, %acc2, %next2 : tensor<1x4xf32>, tensor<?x4xf32>, index
  }
  // The index the loop carried, as a size.
  %count = tensor.empty(%r#2) : tensor<?xi32>
  return %r#1, %r#0, %count : tensor<?x4xf32>, tensor<1x4xf32>, tensor<?xi32>
}
)mlir";

TEST_F(EvaluatorTest, ForLoopCarriesTensorsAndIndices) {
  func::FuncOp func = parse(kRunningSum, "sums");
  ASSERT_TRUE(func);
  HostTensor x = HostTensor::zeros(ElementType::F32, {5, 4});
  for (size_t i = 0; i < x.data.size(); ++i)
    x.data[i] = double(i % 7) - 2.5;
  std::string error;
  FailureOr<std::vector<HostTensor>> results =
      evaluateFunction(func, {x}, error);
  ASSERT_TRUE(succeeded(results)) << error;
  ASSERT_EQ(results->size(), 3u);
  EXPECT_EQ((*results)[2].shape, (std::vector<int64_t>{5}));
  const HostTensor &sums = (*results)[0];
  ASSERT_EQ(sums.shape, (std::vector<int64_t>{5, 4}));
  for (int64_t c = 0; c < 4; ++c) {
    double running = 0;
    for (int64_t r = 0; r < 5; ++r) {
      running += x.data[size_t(r * 4 + c)];
      EXPECT_EQ(sums.data[size_t(r * 4 + c)], running) << r << "," << c;
    }
    EXPECT_EQ((*results)[1].data[size_t(c)], running);
  }
}

TEST_F(EvaluatorTest, ForLoopOfNoIterationsReturnsItsInits) {
  func::FuncOp func = parse(kRunningSum, "sums");
  ASSERT_TRUE(func);
  std::string error;
  FailureOr<std::vector<HostTensor>> results = evaluateFunction(
      func, {HostTensor::zeros(ElementType::F32, {0, 4})}, error);
  ASSERT_TRUE(succeeded(results)) << error;
  EXPECT_EQ((*results)[0].shape, (std::vector<int64_t>{0, 4}));
  EXPECT_EQ((*results)[1].data, (std::vector<double>{0, 0, 0, 0}));
  EXPECT_EQ((*results)[2].shape, (std::vector<int64_t>{0}));
}

TEST_F(EvaluatorTest, ForLoopShapesOnly) {
  func::FuncOp func = parse(kRunningSum, "sums");
  ASSERT_TRUE(func);
  std::string error;
  FailureOr<std::vector<HostTensor>> results = evaluateFunction(
      func, {shapeOnly(ElementType::F32, {1000, 4})}, error, true);
  ASSERT_TRUE(succeeded(results)) << error;
  EXPECT_EQ((*results)[0].shape, (std::vector<int64_t>{1000, 4}));
  EXPECT_TRUE((*results)[0].data.empty());
  EXPECT_EQ((*results)[2].shape, (std::vector<int64_t>{1000}));
}

TEST_F(EvaluatorTest, SpecializeKeepsTheLoopTypes) {
  func::FuncOp func = parse(R"mlir(
func.func @f(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %y = arith.addf %x, %x : tensor<?x4xf32>
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%t = %y) -> tensor<?x4xf32> {
    %u = arith.addf %t, %t : tensor<?x4xf32>
    scf.yield %u : tensor<?x4xf32>
  }
  %z = arith.addf %r, %r : tensor<?x4xf32>
  return %z : tensor<?x4xf32>
}
)mlir",
                            "f");
  ASSERT_TRUE(func);
  std::string error;
  // Values outside the loop get static types; the loop keeps its own (its
  // values change every iteration), its init reached through a cast.
  ASSERT_TRUE(succeeded(specializeShapes(func, {{1000, 4}}, error))) << error;
  EXPECT_TRUE(succeeded(verify(func)));
  auto f32 = Float32Type::get(&context);
  EXPECT_EQ(func.getResultTypes()[0], RankedTensorType::get({1000, 4}, f32));
  func.walk([&](scf::ForOp loop) {
    EXPECT_EQ(loop.getResultTypes()[0],
              RankedTensorType::get({ShapedType::kDynamic, 4}, f32));
    EXPECT_TRUE(loop.getInitArgs()[0].getDefiningOp<tensor::CastOp>());
  });
  HostTensor x = HostTensor::zeros(ElementType::F32, {1000, 4});
  x.data[5] = 1.5;
  FailureOr<std::vector<HostTensor>> results =
      evaluateFunction(func, {x}, error);
  ASSERT_TRUE(succeeded(results)) << error;
  EXPECT_EQ((*results)[0].data[5], 1.5 * 32);
}

TEST_F(EvaluatorTest, ForLoopErrorsNameTheOp) {
  func::FuncOp func = parse(R"mlir(
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 2000000 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%t = %x) -> tensor<4xf32> {
    scf.yield %t : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %c1 step %c1 iter_args(%t = %x) -> tensor<4xf32> {
    %s = tensor.extract_slice %t[%i] [4] [1] : tensor<4xf32> to tensor<4xf32>
    %u = tensor.extract_slice %s[%c1] [4] [1] : tensor<4xf32> to tensor<4xf32>
    scf.yield %u : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
)mlir",
                            "f");
  ASSERT_TRUE(func);
  std::string error;
  EXPECT_TRUE(
      failed(evaluateFunction(func, {shapeOnly(ElementType::F32, {4})}, error,
                              true)));
  EXPECT_EQ(error, "scf.for at test.mlir:6:8: 2000000 iterations: more than "
                   "the reference evaluator runs (1048576)");
  // An error in the body names the body's op.
  auto g = module->lookupSymbol<func::FuncOp>("g");
  EXPECT_TRUE(failed(evaluateFunction(
      g, {HostTensor::zeros(ElementType::F32, {4})}, error)));
  EXPECT_EQ(error, "tensor.extract_slice at test.mlir:17:10: dimension 0: the "
                   "slice [1, +4 x 1) leaves the size 4");
}
