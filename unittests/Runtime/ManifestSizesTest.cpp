//===- ManifestSizesTest.cpp - sizes known at launch ----------------------===//
//
// format_version 3 (docs/manifest.md "Sizes"): the size expressions, their
// exact evaluation, what loading checks without their values, and what
// bindSizes makes of one manifest for different inputs.
//
//===----------------------------------------------------------------------===//

#include "ManifestText.h"

#include "indexpool/Runtime/Manifest.h"

#include "gtest/gtest.h"

#include <limits>
#include <string>

using namespace indexpool::runtime;

namespace {

using Op = SizeExpr::Op;

int64_t apply(Op op, int64_t a, int64_t b) {
  int64_t result = -1;
  std::string why;
  EXPECT_TRUE(applySizeOp(op, a, b, result, why)) << why;
  return result;
}

std::string failure(Op op, int64_t a, int64_t b) {
  int64_t result;
  std::string why;
  EXPECT_FALSE(applySizeOp(op, a, b, result, why));
  return why;
}

TEST(ManifestSizesTest, EachOp) {
  EXPECT_EQ(apply(Op::Add, 3, 4), 7);
  EXPECT_EQ(apply(Op::Sub, 7, 4), 3);
  EXPECT_EQ(apply(Op::Sub, 4, 4), 0);
  EXPECT_EQ(apply(Op::Mul, 6, 7), 42);
  EXPECT_EQ(apply(Op::DivU, 7, 2), 3);
  EXPECT_EQ(apply(Op::CeilDivU, 7, 2), 4);
  EXPECT_EQ(apply(Op::CeilDivU, 8, 2), 4);
  EXPECT_EQ(apply(Op::CeilDivU, 0, 32), 0);
  EXPECT_EQ(apply(Op::RemU, 7, 3), 1);
  EXPECT_EQ(apply(Op::MinU, 7, 3), 3);
  EXPECT_EQ(apply(Op::MaxU, 7, 3), 7);
  EXPECT_EQ(apply(Op::Mul, kMaxSizeValue / 2, 2), kMaxSizeValue);
  EXPECT_EQ(apply(Op::Add, kMaxSizeValue - 1, 1), kMaxSizeValue);
}

TEST(ManifestSizesTest, NeverAWrappedValue) {
  EXPECT_EQ(failure(Op::Mul, kMaxSizeValue, 4),
            "mul overflows: 4611686018427387904 * 4");
  EXPECT_EQ(failure(Op::Mul, kMaxSizeValue / 2 + 1, 2),
            "mul overflows: 2305843009213693953 * 2");
  EXPECT_EQ(failure(Op::Add, kMaxSizeValue, kMaxSizeValue),
            "add overflows: 4611686018427387904 + 4611686018427387904");
  EXPECT_EQ(failure(Op::Sub, 3, 5), "sub is negative: 3 - 5");
  EXPECT_EQ(failure(Op::DivU, 7, 0), "divu by 0: 7 / 0");
  EXPECT_EQ(failure(Op::CeilDivU, 7, 0), "ceildivu by 0: 7 / 0");
  EXPECT_EQ(failure(Op::RemU, 7, 0), "remu by 0: 7 % 0");
}

TEST(ManifestSizesTest, EvaluatedInOrder) {
  std::vector<SizeExpr> sizes(4);
  sizes[0].op = Op::Dim;
  sizes[0].input = 1;
  sizes[0].dim = 0;
  sizes[1].op = Op::SmCount;
  sizes[2].op = Op::Mul;
  sizes[2].args = {SizeOperand::ofSize(0), SizeOperand::ofSize(1)};
  sizes[3].op = Op::CeilDivU;
  sizes[3].args = {SizeOperand::ofSize(2), SizeOperand::literal(64)};
  std::vector<int64_t> values;
  size_t entry;
  std::string why;
  ASSERT_TRUE(evaluateSizes(sizes, {{5}, {100, 3}}, 132, values, entry, why))
      << why;
  EXPECT_EQ(values, (std::vector<int64_t>{100, 132, 13200, 207}));
  // The SM count must be known when a size uses it.
  EXPECT_FALSE(evaluateSizes(sizes, {{5}, {100, 3}}, 0, values, entry, why));
  EXPECT_EQ(entry, 1u);
  EXPECT_EQ(why, "sm_count: the device's multiprocessor count is unknown");
  sizes[2].args[1] = SizeOperand::literal(int64_t(1) << 61);
  EXPECT_FALSE(evaluateSizes(sizes, {{5}, {100, 3}}, 132, values, entry, why));
  EXPECT_EQ(entry, 2u);
  EXPECT_EQ(why, "mul overflows: 100 * 2305843009213693952");
}

/// A dynamic expand (test/Tools/Inputs/launch/expand-dynamic.json): [B, K]
/// indices, count = B * K, grid = ceil(count / 8).
constexpr const char *kExpand = R"({
  "format_version": 3,
  "chip": "sm_80",
  "function": "expand_any_size",
  "binary": {"path": "fake.ptx", "format": "ptx"},
  "sizes": [
    {"op": "dim", "buffer": 0, "dim": 0},
    {"op": "dim", "buffer": 0, "dim": 1},
    {"op": "mul", "args": [{"size": 0}, {"size": 1}]},
    {"op": "mul", "args": [{"size": 1}, 4]},
    {"op": "ceildivu", "args": [{"size": 2}, 8]},
    {"op": "mul", "args": [{"size": 2}, 4]},
    {"op": "mul", "args": [{"size": 5}, 4]}
  ],
  "buffers": [
    {"id": 0, "role": "input", "index": 0, "type": "i32", "shape": [{"size": 0}, {"size": 1}]},
    {"id": 1, "role": "output", "index": 0, "type": "i32", "shape": [{"size": 0}, {"size": 3}]}
  ],
  "kernels": [
    {"name": "indexpool_test_expand",
     "params": [{"kind": "buffer", "bytes": {"size": 5}}, {"kind": "buffer", "bytes": {"size": 6}},
                {"kind": "i64"}, {"kind": "i32"}]}
  ],
  "launches": [
    {"kernel": "indexpool_test_expand", "grid": [{"size": 4}, 1, 1], "block": [8, 1, 1],
     "params": [{"buffer": 0}, {"buffer": 1}, {"i64": {"size": 2}}, {"i32": 4}]}
  ],
  "computes": [
    {"op": "expand", "operands": {"indices": 0}, "results": [1],
     "properties": {"pool_size": 4}}
  ]
})";

using test::edited;
using test::load;
using test::loadError;

std::string bindError(const std::string &text,
                      const std::vector<std::vector<int64_t>> &shapes,
                      int64_t smCount = 132) {
  Manifest symbolic = load(text), bound;
  std::string error;
  return bindSizes(symbolic, shapes, smCount, bound, error) ? "" : error;
}

TEST(ManifestSizesTest, LoadingChecksWhatNeedsNoValues) {
  Manifest m = load(kExpand);
  EXPECT_TRUE(m.needsBinding());
  EXPECT_FALSE(m.usesSmCount());
  ASSERT_EQ(m.sizes.size(), 7u);
  EXPECT_EQ(m.sizes[1].op, Op::Dim);
  EXPECT_EQ(m.sizes[1].input, 0);
  EXPECT_EQ(m.sizes[1].dim, 1);
  EXPECT_EQ(m.sizes[4].op, Op::CeilDivU);
  EXPECT_EQ(m.sizes[4].args[0], SizeOperand::ofSize(2));
  EXPECT_EQ(m.sizes[4].args[1], SizeOperand::literal(8));
  EXPECT_EQ(symbolicShapeString(*m.findBuffer(0)), "[?, ?]");
  EXPECT_EQ(m.launches[0].gridOperands[0], SizeOperand::ofSize(4));
  EXPECT_EQ(m.launches[0].params[2].operand, SizeOperand::ofSize(2));
  EXPECT_EQ(m.kernels[0].params[1].bytesOperand, SizeOperand::ofSize(6));

  EXPECT_EQ(loadError(edited(kExpand, "\"op\": \"ceildivu\"", "\"op\": \"pow\"")),
            "m.json:11:12: sizes[4].op: unknown size op \"pow\" (expected dim, "
            "sm_count, add, sub, mul, divu, ceildivu, remu, minu or maxu)");
  // Forward references (and an entry's own index) are refused.
  EXPECT_EQ(loadError(edited(kExpand, "[{\"size\": 2}, 8]", "[{\"size\": 4}, 8]")),
            "m.json:11:42: sizes[4].args[0].size: sizes[4] may only use "
            "earlier sizes, got 4");
  EXPECT_EQ(loadError(edited(kExpand, "[{\"size\": 2}, 8]", "[{\"size\": 2}]")),
            "m.json:11:32: sizes[4].args: ceildivu takes 2 operands [A, B], "
            "got 1");
  EXPECT_EQ(loadError(edited(kExpand, "{\"op\": \"dim\", \"buffer\": 0, \"dim\": 1}",
                             "{\"op\": \"dim\", \"buffer\": 1, \"dim\": 1}")),
            "m.json:8:29: sizes[1].buffer: buffer 1 is an output (dim names a "
            "dimension of an input)");
  EXPECT_EQ(loadError(edited(kExpand, "{\"op\": \"dim\", \"buffer\": 0, \"dim\": 1}",
                             "{\"op\": \"dim\", \"buffer\": 7, \"dim\": 1}")),
            "m.json:8:29: sizes[1].buffer: no input buffer has id 7");
  EXPECT_EQ(loadError(edited(kExpand, "{\"op\": \"dim\", \"buffer\": 0, \"dim\": 1}",
                             "{\"op\": \"dim\", \"buffer\": 0, \"dim\": 2}")),
            "m.json:8:39: sizes[1].dim: input buffer 0 has 2 dimensions");
  EXPECT_EQ(loadError(edited(kExpand, "{\"op\": \"dim\", \"buffer\": 0, \"dim\": 1}",
                             "{\"op\": \"sm_count\", \"dim\": 1}")),
            "m.json:8:31: sizes[1].dim: unknown field (expected op)");
  // An input's shape names only its own dimensions.
  EXPECT_EQ(loadError(edited(kExpand, "\"shape\": [{\"size\": 0}, {\"size\": 1}]",
                             "\"shape\": [{\"size\": 0}, {\"size\": 3}]")),
            "m.json:16:82: buffers[0].shape[1]: an input's size must be its "
            "own dimension: sizes[3] is not {\"op\": \"dim\", \"buffer\": 0, "
            "\"dim\": 1}");
  EXPECT_EQ(loadError(edited(kExpand, "{\"i64\": {\"size\": 2}}",
                             "{\"i64\": {\"size\": 7}}")),
            "m.json:26:64: launches[0].params[2].i64.size: no size 7 (the "
            "manifest has 7 sizes)");
  EXPECT_EQ(loadError(edited(kExpand, "{\"i64\": {\"size\": 2}}",
                             "{\"i64\": {\"size\": -1}}")),
            "m.json:26:64: launches[0].params[2].i64.size: expected the index "
            "of a size (0, 1, ...), got -1");
  // Version 2 has no sizes; a size operand there names none.
  EXPECT_EQ(loadError(edited(kExpand, "\"format_version\": 3",
                             "\"format_version\": 2")),
            "m.json:6:12: sizes: format_version 2 has no sizes (they are new "
            "in format_version 3)");
}

TEST(ManifestSizesTest, OneManifestBindsToEachInputSize) {
  Manifest symbolic = load(kExpand);
  for (auto [b, k] : {std::pair<int64_t, int64_t>{3, 5}, {20, 8}}) {
    Manifest bound;
    std::string error;
    ASSERT_TRUE(bindSizes(symbolic, {{b, k}}, 132, bound, error)) << error;
    EXPECT_FALSE(bound.needsBinding());
    EXPECT_EQ(bound.sizeValues[2], b * k);
    EXPECT_EQ(bound.findBuffer(0)->shape, (std::vector<int64_t>{b, k}));
    EXPECT_EQ(bound.findBuffer(1)->shape, (std::vector<int64_t>{b, k * 4}));
    ASSERT_EQ(bound.launches.size(), 1u);
    const Launch &launch = bound.launches[0];
    EXPECT_EQ(launch.grid, (std::array<uint32_t, 3>{
                               uint32_t((b * k + 7) / 8), 1, 1}));
    EXPECT_EQ(launch.params[2].integer, b * k);
    EXPECT_EQ(launch.params[3].integer, 4);
    EXPECT_EQ(bound.kernels[0].params[1].bytes, b * k * 16);
    EXPECT_EQ(bound.computes.size(), 1u);
  }
  // The symbolic manifest is left as it was: it binds again.
  EXPECT_TRUE(symbolic.needsBinding());

  // An empty input: a 0 in the grid skips the launch.
  Manifest bound;
  std::string error;
  ASSERT_TRUE(bindSizes(symbolic, {{0, 8}}, 132, bound, error)) << error;
  EXPECT_TRUE(bound.launches.empty());
  EXPECT_EQ(bound.skippedLaunches, 1u);
  EXPECT_EQ(bound.findBuffer(1)->shape, (std::vector<int64_t>{0, 32}));
}

TEST(ManifestSizesTest, BindingChecksTheValues) {
  EXPECT_EQ(bindError(kExpand, {{2, 3, 4}}),
            "input #0 is [2, 3, 4], but input #0 of m.json has shape [?, ?]");
  EXPECT_EQ(bindError(kExpand, {{2, -3}}),
            "input #0 is [2, -3], but input #0 of m.json has shape [?, ?]");
  EXPECT_EQ(bindError(kExpand, {}), "m.json takes 1 input, got 0 shapes");
  EXPECT_EQ(bindError(kExpand, {{int64_t(3) << 31, int64_t(3) << 31}}),
            "m.json:9:5: sizes[2]: mul overflows: 6442450944 * 6442450944");
  EXPECT_EQ(bindError(kExpand, {{int64_t(1) << 21, int64_t(1) << 20}}),
            "m.json:16:68: buffers[0].shape: more than 2^40 elements");
  // The grid's limits, naming the launch.
  std::string tall = edited(kExpand, "\"grid\": [{\"size\": 4}, 1, 1]",
                            "\"grid\": [1, {\"size\": 2}, 1]");
  EXPECT_EQ(bindError(tall, {{700, 100}}),
            "m.json:25:53: launches[0].grid[1]: sizes[2] is 70000, not in "
            "[0, 65535]");
  EXPECT_EQ(bindError(tall, {{200, 100}}), "");
  std::string wide = edited(kExpand, "{\"i32\": 4}", "{\"i32\": {\"size\": 2}}");
  EXPECT_EQ(bindError(wide, {{70000, 70000}}),
            "m.json:26:77: launches[0].params[3].i32: sizes[2] is 4900000000, "
            "not in [0, 2147483647]");
  // The kernel's extents against the evaluated buffers.
  std::string greedy = edited(kExpand, "{\"kind\": \"buffer\", \"bytes\": {\"size\": 6}}",
                              "{\"kind\": \"buffer\", \"bytes\": {\"size\": 5}}");
  EXPECT_EQ(bindError(edited(greedy, "{\"size\": 3}]}", "2]}"), {{2, 8}}),
            "m.json:26:32: launches[0].params[1]: kernel "
            "'indexpool_test_expand' accesses 64 bytes through parameter 1, "
            "but buffer 1 (tensor<2x2xi32>) has 16");
  // sm_count comes from the device.
  std::string sms = edited(kExpand, "{\"op\": \"mul\", \"args\": [{\"size\": 5}, 4]}",
                           "{\"op\": \"sm_count\"}");
  sms = edited(sms, "{\"i32\": 4}", "{\"i32\": {\"size\": 6}}");
  EXPECT_TRUE(load(sms).usesSmCount());
  EXPECT_EQ(bindError(sms, {{2, 8}}, 0),
            "m.json:13:5: sizes[6]: sm_count: the device's multiprocessor "
            "count is unknown");
}

TEST(ManifestSizesTest, InconsistentInputsGetTheComputesError) {
  // Codes [R, D] and scales [R2]: dequantize needs R2 = R.
  std::string text = R"({
  "format_version": 3, "chip": "sm_90", "function": "f",
  "binary": {"path": "f.ptx", "format": "ptx"},
  "sizes": [{"op": "dim", "buffer": 0, "dim": 0}, {"op": "dim", "buffer": 0, "dim": 1},
            {"op": "dim", "buffer": 1, "dim": 0}],
  "buffers": [
    {"id": 0, "role": "input", "index": 0, "type": "i8", "shape": [{"size": 0}, {"size": 1}]},
    {"id": 1, "role": "input", "index": 1, "type": "f32", "shape": [{"size": 2}]},
    {"id": 2, "role": "output", "index": 0, "type": "f32", "shape": [{"size": 0}, {"size": 1}]}
  ],
  "launches": [],
  "computes": [{"op": "dequantize", "operands": {"codes": 0, "scales": 1}, "results": [2]}]
})";
  EXPECT_EQ(bindError(text, {{8, 16}, {8}}), "");
  EXPECT_EQ(bindError(text, {{8, 16}, {6}}),
            "m.json:12:16: computes[0] (dequantize): scale must be [N] = [8], "
            "got [6]");
}

TEST(ManifestSizesTest, AManifestWithoutSizesBindsToItself) {
  Manifest m, bound;
  std::string error;
  ASSERT_TRUE(loadManifest(INDEXPOOL_TEST_INPUTS "/fake.json", m, error))
      << error;
  EXPECT_FALSE(m.needsBinding());
  EXPECT_EQ(m.formatVersion, 2);
  ASSERT_TRUE(bindSizes(m, {{8, 16}, {8}, {2, 8}}, 0, bound, error)) << error;
  EXPECT_EQ(bound.launches.size(), m.launches.size());
  EXPECT_EQ(bound.findBuffer(4)->shape, m.findBuffer(4)->shape);
  EXPECT_FALSE(bindSizes(m, {{8, 16}, {8}, {2, 9}}, 0, bound, error));
  EXPECT_EQ(error, "input #2 is [2, 9], but input #2 of " INDEXPOOL_TEST_INPUTS
                   "/fake.json has shape [2, 8]");
}

} // namespace
