//===- ReferenceRunTest.cpp - a manifest's computes on the reference ------===//
//
// A hand-written manifest run by the runtime gives exactly what calling the
// reference directly gives; selections get their near-tie contexts; random
// inputs follow the uses.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Runtime/ReferenceRun.h"

#include "indexpool/Dialect/OpContract.h"
#include "indexpool/Reference/RandomInputs.h"
#include "indexpool/Reference/Reference.h"

#include "gtest/gtest.h"

#include <random>
#include <string>

using namespace indexpool::runtime;
namespace ref = indexpool::ref;
using ref::ElementType;
using ref::HostTensor;

namespace {

/// pool -> hadamard -> quantize (the compress chain, T = 37 with a tail),
/// and score -> topk -> expand with valid lengths over quantized keys.
constexpr const char *kManifest = R"({
  "format_version": 2, "chip": "sm_90", "function": "chains",
  "binary": {"path": "chains.ptx", "format": "ptx"},
  "buffers": [
    {"id": 0, "role": "input", "index": 0, "type": "bf16", "shape": [37, 16]},
    {"id": 1, "role": "input", "index": 1, "type": "f32", "shape": [37]},
    {"id": 2, "role": "input", "index": 2, "type": "f32", "shape": [4]},
    {"id": 3, "role": "intermediate", "type": "bf16", "shape": [9, 16]},
    {"id": 4, "role": "temporary", "type": "f32", "shape": [9, 4]},
    {"id": 5, "role": "intermediate", "type": "bf16", "shape": [9, 16]},
    {"id": 6, "role": "output", "index": 0, "type": "f8E4M3FN", "shape": [9, 16]},
    {"id": 7, "role": "output", "index": 1, "type": "f32", "shape": [9]},
    {"id": 8, "role": "input", "index": 3, "type": "bf16", "shape": [2, 3, 16]},
    {"id": 9, "role": "input", "index": 4, "type": "f32", "shape": [2, 3]},
    {"id": 10, "role": "input", "index": 5, "type": "i32", "shape": [2]},
    {"id": 11, "role": "intermediate", "type": "f32", "shape": [2, 9]},
    {"id": 12, "role": "output", "index": 2, "type": "f32", "shape": [2, 5]},
    {"id": 13, "role": "output", "index": 3, "type": "i32", "shape": [2, 5]},
    {"id": 14, "role": "output", "index": 4, "type": "i32", "shape": [2, 20]},
    {"id": 15, "role": "output", "index": 5, "type": "i32", "shape": [2, 20]}
  ],
  "launches": [],
  "computes": [
    {"op": "pool", "operands": {"keys": 0, "scores": 1, "bias": 2},
     "results": [3, 4], "properties": {"pool_size": 4, "temperature": 0.5}},
    {"op": "hadamard", "operands": {"input": 3}, "results": [5]},
    {"op": "quantize", "operands": {"input": 5}, "results": [6, 7],
     "properties": {"pow2_scale": true}},
    {"op": "score", "operands": {"query": 8, "weights": 9, "keys": 6, "scales": 7},
     "results": [11]},
    {"op": "topk", "operands": {"logits": 11, "valid": 10}, "results": [12, 13],
     "properties": {"k": 5}},
    {"op": "expand", "operands": {"indices": 13}, "results": [14],
     "properties": {"pool_size": 4}},
    {"op": "select", "operands": {"query": 8, "weights": 9, "keys": 6,
                                  "scales": 7, "valid": 10},
     "results": [15], "properties": {"k": 5, "pool_size": 4}}
  ]
})";

class ReferenceRunTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string error;
    ASSERT_TRUE(parseManifest(kManifest, "chains.json", ".", manifest, error))
        << error;
  }
  Manifest manifest;
};

TEST_F(ReferenceRunTest, MatchesCallingTheReferenceDirectly) {
  std::vector<HostTensor> inputs = generateRandomInputs(manifest, 7);
  ASSERT_EQ(inputs.size(), 6u);
  std::vector<HostTensor> copy = inputs;
  ReferenceValues values;
  std::string error;
  ASSERT_TRUE(runReference(manifest, std::move(copy), values, error)) << error;

  const HostTensor &keys = inputs[0], &scores = inputs[1], &bias = inputs[2];
  ref::PoolResult pooled =
      ref::pool(keys, scores, &bias, 4, double(0.5f), ElementType::BF16);
  HostTensor rotated = ref::hadamard(pooled.pooled, ElementType::BF16);
  ref::QuantizeResult q =
      ref::quantize(rotated, ElementType::F8E4M3FN, true, double(1e-4f));
  EXPECT_EQ(values.at(3).data, pooled.pooled.data);
  EXPECT_EQ(values.at(4).data, pooled.weights.data);
  EXPECT_EQ(values.at(6).data, q.q.data);
  EXPECT_EQ(values.at(7).data, q.scale.data);
  // The same chain, fused, gives the same codes (docs/IndexPoolOps.md, compress).
  ref::CompressOptions options;
  options.temperature = double(0.5f);
  options.rotate = true;
  options.pow2Scale = true;
  options.minAbsmax = double(1e-4f);
  EXPECT_EQ(ref::compress(keys, scores, &bias, options).q.data, q.q.data);

  HostTensor logits = ref::score(inputs[3], inputs[4], q.q, &q.scale);
  ref::TopKResult top = ref::topk(logits, &inputs[5], 5);
  EXPECT_EQ(values.at(11).data, logits.data);
  EXPECT_EQ(values.at(12).data, top.values.data);
  EXPECT_EQ(values.at(13).data, top.indices.data);
  EXPECT_EQ(values.at(14).data, ref::expand(top.indices, 4).data);
  EXPECT_EQ(values.at(15).data, values.at(14).data);
  EXPECT_EQ(values.at(0).data, keys.data); // inputs are kept too
}

TEST_F(ReferenceRunTest, SelectionsGetTheirContexts) {
  ReferenceValues values;
  std::string error;
  ASSERT_TRUE(runReference(manifest, generateRandomInputs(manifest, 3), values,
                           error))
      << error;
  EXPECT_FALSE(selectionContextOf(manifest, values, 6)); // codes
  EXPECT_FALSE(selectionContextOf(manifest, values, 12)); // topk values
  for (int64_t id : {13, 14, 15}) {
    std::optional<SelectionContext> context =
        selectionContextOf(manifest, values, id);
    ASSERT_TRUE(context) << id;
    EXPECT_EQ(context->logits.data, values.at(11).data) << id;
    ASSERT_TRUE(context->valid) << id;
    EXPECT_EQ(context->valid->data, values.at(10).data) << id;
    EXPECT_EQ(context->poolSize, id == 13 ? 1 : 4) << id;
  }
  // A near-tie swap is accepted with the context.
  HostTensor tokens = values.at(14);
  std::optional<SelectionContext> context =
      selectionContextOf(manifest, values, 14);
  Comparison same = compareWithReference(tokens, values.at(14), &*context);
  EXPECT_TRUE(same.ok) << same.reason;
}

TEST_F(ReferenceRunTest, RandomInputsFollowTheUses) {
  std::vector<InputDescription> descriptions = describeInputs(manifest);
  ASSERT_EQ(descriptions.size(), 6u);
  using D = ref::InputDistribution;
  EXPECT_EQ(descriptions[0].distribution, D::Normal);
  EXPECT_EQ(descriptions[0].use, "keys of computes[0] (pool)");
  EXPECT_EQ(descriptions[2].use, "bias of computes[0] (pool)");
  EXPECT_EQ(descriptions[3].distribution, D::Normal);
  EXPECT_EQ(descriptions[4].use, "weights of computes[3] (score)");
  // valid: bounded by the 9 columns of the topk's logits.
  EXPECT_EQ(descriptions[5].distribution, D::ValidLengths);
  EXPECT_EQ(descriptions[5].lengthBound, 9);
  EXPECT_EQ(descriptions[5].use, "valid of computes[4] (topk)");

  std::vector<HostTensor> inputs = generateRandomInputs(manifest, 11);
  ASSERT_EQ(inputs.size(), 6u);
  EXPECT_EQ(inputs[0].type, ElementType::BF16);
  EXPECT_EQ(inputs[0].shape, (std::vector<int64_t>{37, 16}));
  for (double v : inputs[0].data)
    EXPECT_EQ(v, ref::roundToBF16(v));
  bool full = false;
  for (double v : inputs[5].data) {
    EXPECT_GE(v, 0);
    EXPECT_LE(v, 9);
    full = full || v == 9;
  }
  EXPECT_TRUE(full);
  // One seed, one set of inputs; they are what the shared sampler draws.
  EXPECT_EQ(generateRandomInputs(manifest, 11)[3].data, inputs[3].data);
  EXPECT_NE(generateRandomInputs(manifest, 12)[3].data, inputs[3].data);
  std::mt19937_64 rng(11);
  HostTensor first =
      ref::drawRandomInput(D::Normal, ElementType::BF16, {37, 16}, rng);
  EXPECT_EQ(first.data, inputs[0].data);
}

// Each operand's draw as --random-inputs documents it (indexpool-run
// --help): scales small and positive, quantized keys valid codes, lengths,
// slots, page ids, candidates and expand indices bounded, pages random
// bytes, everything else N(0, 1).
TEST(RandomInputsTest, EveryOperandOfEveryOpHasItsDocumentedDraw) {
  using D = ref::InputDistribution;
  auto documented = [](std::string_view operand, ElementType type) {
    if (operand == "scales")
      return D::PositiveScales;
    if (operand == "codes" ||
        (operand == "keys" && (type == ElementType::I8 ||
                               type == ElementType::F8E4M3FN)))
      return D::QuantizedCodes;
    if (operand == "valid" || operand == "lengths")
      return D::ValidLengths;
    if (operand == "indices")
      return D::PoolIndices;
    if (operand == "candidates")
      return D::CandidateTokens;
    if (operand == "slots")
      return D::PageSlots;
    if (operand == "block_table")
      return D::PageIds;
    if (operand == "pages")
      return D::Default;
    return D::Normal;
  };
  int checked = 0;
  for (const mlir::indexpool::OpContract &op :
       mlir::indexpool::opContracts())
    for (const mlir::indexpool::OperandContract &operand : op.operands)
      for (const ::indexpool::ElementTypeInfo &info :
           ::indexpool::allElementTypes()) {
        ElementType type = info.type;
        if (!operand.types.contains(type))
          continue;
        EXPECT_EQ(ref::distributionOfOperand(op.name, operand.name, type),
                  documented(operand.name, type))
            << op.name << " " << operand.name << " "
            << ::indexpool::elementTypeName(type);
        ++checked;
      }
  EXPECT_GT(checked, 100);
  // f8E4M3FN queries are not codes: N(0, 1) rounded to the type.
  EXPECT_EQ(ref::distributionOfOperand("score", "query",
                                       ElementType::F8E4M3FN),
            D::Normal);
  EXPECT_EQ(ref::distributionOfOperand("score", "nothing", ElementType::F32),
            D::Default);
  EXPECT_EQ(ref::distributionOfOperand("matmul", "keys", ElementType::F32),
            D::Default);
}

TEST_F(ReferenceRunTest, InputsAreChecked) {
  ReferenceValues values;
  std::string error;
  std::vector<HostTensor> inputs = generateRandomInputs(manifest, 1);
  inputs.pop_back();
  EXPECT_FALSE(runReference(manifest, inputs, values, error));
  EXPECT_EQ(error, "chains.json has 6 inputs, got 5");
  inputs = generateRandomInputs(manifest, 1);
  inputs[1] = HostTensor::zeros(ElementType::F32, {36});
  EXPECT_FALSE(runReference(manifest, inputs, values, error));
  EXPECT_EQ(error, "input #1 is tensor<36xf32>, but buffer 1 is "
                   "tensor<37xf32>");
}

TEST(EvaluateComputeTest, ShapesOnlyAndErrors) {
  Compute compute;
  compute.op = "topk";
  compute.k = 4;
  compute.operands = {{"logits", 0}};
  HostTensor logits{ElementType::F32, {3, 10}, {}};
  std::vector<HostTensor> results;
  std::string error;
  ASSERT_TRUE(evaluateCompute(compute, {&logits},
                              {ElementType::F32, ElementType::I32},
                              /*shapesOnly=*/true, results, error))
      << error;
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[1].shape, (std::vector<int64_t>{3, 4}));
  EXPECT_TRUE(results[1].data.empty());
  compute.k = 11;
  EXPECT_FALSE(evaluateCompute(compute, {&logits},
                               {ElementType::F32, ElementType::I32}, true,
                               results, error));
  EXPECT_EQ(error, "k must be at most N = 10 (the number of columns), got 11");
  compute.k = 4;
  EXPECT_FALSE(evaluateCompute(compute, {&logits},
                               {ElementType::F32, ElementType::F32}, true,
                               results, error));
  EXPECT_EQ(error, "result 'indices' must have element type i32, got f32");
  compute.operands = {{"valid", 0}};
  EXPECT_FALSE(evaluateCompute(compute, {&logits},
                               {ElementType::F32, ElementType::I32}, true,
                               results, error));
  EXPECT_EQ(error, "missing operand \"logits\"");
  compute.op = "scan";
  EXPECT_FALSE(evaluateCompute(compute, {&logits}, {}, true, results, error));
  EXPECT_EQ(error, "unknown op 'scan'");
}

TEST(EvaluateComputeTest, Refine) {
  Compute compute;
  compute.op = "refine";
  compute.k = 3;
  compute.operands = {
      {"query", 0}, {"weights", 1}, {"candidates", 2}, {"keys", 3}};
  std::mt19937_64 rng(3);
  using D = ref::InputDistribution;
  HostTensor q =
      ref::drawRandomInput(D::Normal, ElementType::BF16, {2, 4, 16}, rng);
  HostTensor w = ref::drawRandomInput(D::Normal, ElementType::F32, {2, 4}, rng);
  // Token ids of the 50 keys, one in eight -1.
  HostTensor candidates = ref::drawRandomInput(
      D::CandidateTokens, ElementType::I32, {2, 400}, rng, /*lengthBound=*/50);
  int64_t padding = 0;
  for (double t : candidates.data) {
    EXPECT_TRUE(t == -1 || (t >= 0 && t < 50)) << t;
    padding += t == -1;
  }
  EXPECT_GT(padding, 50);
  EXPECT_LT(padding, 150);
  EXPECT_EQ(
      ref::distributionOfOperand("refine", "candidates", ElementType::I32),
      D::CandidateTokens);
  HostTensor keys =
      ref::drawRandomInput(D::Normal, ElementType::BF16, {50, 16}, rng);
  std::vector<HostTensor> results;
  std::string error;
  ASSERT_TRUE(evaluateCompute(compute, {&q, &w, &candidates, &keys},
                              {ElementType::I32}, /*shapesOnly=*/false, results,
                              error))
      << error;
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].data,
            ref::refine(q, w, candidates, keys, nullptr, 3).data);
  // The dialect's rules: k <= C, scales iff quantized keys.
  compute.k = 401;
  EXPECT_FALSE(evaluateCompute(compute, {&q, &w, &candidates, &keys},
                               {ElementType::I32}, true, results, error));
  EXPECT_EQ(error, "k must be at most C = 400 (the candidates of a row), got "
                   "401");
  compute.k = 3;
  HostTensor scales{ElementType::F32, {50}, {}};
  compute.operands.push_back({"scales", 4});
  EXPECT_FALSE(evaluateCompute(compute, {&q, &w, &candidates, &keys, &scales},
                               {ElementType::I32}, true, results, error));
  EXPECT_EQ(error, "keys of type bf16 are full precision: they take no "
                   "operand \"scales\"");
}

} // namespace
