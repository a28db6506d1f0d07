//===- DialectTest.cpp - the C++ API of the indexpool dialect -------------===//
//
// What lit cannot see: the generated builders and accessors, the default
// property values, the size helpers shared with the runtimes, and that the
// verifier reports through the diagnostic engine (one error, named operand).
//
//===----------------------------------------------------------------------===//

#include "indexpool/Dialect/IndexPoolDialect.h"
#include "indexpool/Dialect/IndexPoolOps.h"
#include "indexpool/Dialect/Shapes.h"
#include "indexpool/Reference/Reference.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::indexpool;

namespace {

class IndexPoolDialectTest : public ::testing::Test {
protected:
  IndexPoolDialectTest() : builder(&context) {
    context.loadDialect<IndexPoolDialect, func::FuncDialect>();
    // Collect every diagnostic instead of printing it.
    handler = std::make_unique<ScopedDiagnosticHandler>(
        &context, [this](Diagnostic &diag) {
          messages.push_back(diag.str());
          return success();
        });
  }

  RankedTensorType tensor(ArrayRef<int64_t> shape, Type element) {
    return RankedTensorType::get(shape, element);
  }

  /// A function whose arguments have `types`, with the builder inside it.
  func::FuncOp makeFunc(TypeRange types) {
    module = ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(module->getBody());
    auto fn = func::FuncOp::create(builder, builder.getUnknownLoc(), "f",
                                   builder.getFunctionType(types, {}));
    builder.setInsertionPointToStart(fn.addEntryBlock());
    return fn;
  }

  MLIRContext context;
  OpBuilder builder;
  OwningOpRef<ModuleOp> module;
  std::unique_ptr<ScopedDiagnosticHandler> handler;
  std::vector<std::string> messages;
};

TEST(ShapesTest, PoolSizeIsPowerOfTwoBetween2And64) {
  for (int64_t p : {2, 4, 8, 16, 32, 64})
    EXPECT_TRUE(isValidPoolSize(p)) << p;
  for (int64_t p : {-4, 0, 1, 3, 6, 12, 128})
    EXPECT_FALSE(isValidPoolSize(p)) << p;
}

TEST(ShapesTest, GroupsDropTheTailAndStayDynamic) {
  EXPECT_EQ(numGroups(1024, 4), 256);
  EXPECT_EQ(numGroups(1027, 4), 256);
  EXPECT_EQ(numGroups(3, 4), 0);
  EXPECT_EQ(numGroups(kShapeDynamic, 4), kShapeDynamic);
  EXPECT_EQ(mulDims(64, 4), 256);
  EXPECT_EQ(mulDims(kShapeDynamic, 4), kShapeDynamic);
  EXPECT_TRUE(isValidHadamardDim(1024));
  EXPECT_FALSE(isValidHadamardDim(2048));
  EXPECT_FALSE(isValidHadamardDim(96));
}

TEST_F(IndexPoolDialectTest, BuiltPoolHasSpecDefaultsAndVerifies) {
  Type bf16 = builder.getBF16Type(), f32 = builder.getF32Type();
  auto keys = tensor({1026, 128}, bf16);
  auto scores = tensor({1026}, f32);
  func::FuncOp fn = makeFunc({keys, scores});
  auto pool = PoolOp::create(builder, builder.getUnknownLoc(),
                             tensor({256, 128}, bf16), tensor({256, 4}, f32),
                             fn.getArgument(0), fn.getArgument(1),
                             /*bias=*/Value(), builder.getI64IntegerAttr(4),
                             /*temperature=*/FloatAttr());
  EXPECT_EQ(pool.getPoolSize(), 4);
  EXPECT_EQ(pool.getTemperature().convertToFloat(), 1.0f);
  EXPECT_TRUE(succeeded(verify(pool)));
  EXPECT_TRUE(messages.empty());
}

TEST_F(IndexPoolDialectTest, VerifierNamesTheResultAndTheExpectedSize) {
  Type bf16 = builder.getBF16Type(), f32 = builder.getF32Type();
  auto keys = tensor({1024, 128}, bf16);
  auto scores = tensor({1024}, f32);
  func::FuncOp fn = makeFunc({keys, scores});
  auto pool = PoolOp::create(builder, builder.getUnknownLoc(),
                             tensor({255, 128}, bf16), tensor({256, 4}, f32),
                             fn.getArgument(0), fn.getArgument(1), Value(),
                             builder.getI64IntegerAttr(4), FloatAttr());
  EXPECT_TRUE(failed(verify(pool)));
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_NE(messages[0].find("result 'pooled' dimension 0 must be G = "
                             "floor(T / P) = 256, got 255"),
            std::string::npos)
      << messages[0];
}

TEST_F(IndexPoolDialectTest, ParsedSelectExposesBothOptionalOperands) {
  const char *source = R"mlir(
    func.func @f(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>,
                 %k: tensor<?x128xf8E4M3FN>, %s: tensor<?xf32>,
                 %len: tensor<1xi32>) -> tensor<1x2048xi32> {
      %t = indexpool.select %q, %w, %k scales(%s) valid(%len)
          {k = 512 : i64, pool_size = 4 : i64}
          : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<?x128xf8E4M3FN>,
             tensor<?xf32>, tensor<1xi32>) -> tensor<1x2048xi32>
      return %t : tensor<1x2048xi32>
    })mlir";
  OwningOpRef<ModuleOp> parsed =
      parseSourceString<ModuleOp>(source, ParserConfig(&context));
  ASSERT_TRUE(parsed) << (messages.empty() ? "" : messages[0]);
  SelectOp select;
  parsed->walk([&](SelectOp op) { select = op; });
  ASSERT_TRUE(select);
  EXPECT_EQ(select.getK(), 512);
  EXPECT_EQ(select.getPoolSize(), 4);
  EXPECT_TRUE(select.getScales());
  EXPECT_TRUE(select.getValid());
  auto args = select->getParentOfType<func::FuncOp>().getArguments();
  EXPECT_EQ(select.getScales(), args[3]);
  EXPECT_EQ(select.getValid(), args[4]);
}

TEST_F(IndexPoolDialectTest, OpsArePureSoUnusedOnesCanBeErased) {
  func::FuncOp fn = makeFunc({tensor({4, 16}, builder.getI32Type())});
  auto expand = ExpandOp::create(builder, builder.getUnknownLoc(),
                                 tensor({4, 64}, builder.getI32Type()),
                                 fn.getArgument(0), 4);
  EXPECT_TRUE(isPure(expand));
  EXPECT_TRUE(isOpTriviallyDead(expand));
}


TEST(ShapesTest, ProductsOfSizesAreOverflowChecked) {
  constexpr int64_t k2to61 = int64_t(1) << 61, k2to62 = int64_t(1) << 62;
  EXPECT_EQ(checkedMulSizes(int64_t(1) << 31, int64_t(1) << 31), k2to62);
  EXPECT_EQ(checkedMulSizes(k2to62, 4), std::nullopt);
  EXPECT_EQ(checkedMulSizes(k2to62, 0), 0);
  EXPECT_EQ(checkedMulSizes(-1, 4), std::nullopt);
  // Never a wrapped size: an overflowing product is unknown.
  EXPECT_EQ(mulDims(k2to62, 4), kShapeDynamic);
  EXPECT_EQ(mulDims(k2to62, 1), k2to62);
  std::vector<int64_t> wraps{k2to62, 4}, big{k2to61, kShapeDynamic};
  EXPECT_EQ(staticByteSize(wraps, 1), std::nullopt);
  EXPECT_EQ(staticByteSize(big, 2), k2to62);
  EXPECT_EQ(staticByteSize(big, 4), std::nullopt);
}

TEST(ShapesTest, RulesStateTheirBounds) {
  // Inclusive bounds: 2^-126 and qmax * 2^-126 pass, the next f32 below not.
  EXPECT_EQ(temperatureRule(0x1p-126), "");
  EXPECT_EQ(temperatureRule(std::nextafter(0x1p-126f, 0.0f)),
            "temperature must be at least 1.17549e-38 (2^-126, so that 1 / "
            "temperature is a finite f32), got 1.1754942e-38");
  EXPECT_EQ(temperatureRule(INFINITY), "temperature must be finite, got inf");
  EXPECT_EQ(minAbsmaxRule(448 * 0x1p-126, 448, "f8E4M3FN"), "");
  EXPECT_EQ(minAbsmaxRule(127 * 0x1p-126, 127, "i8"), "");
  EXPECT_EQ(minAbsmaxRule(double(1e-40f), 448, "f8E4M3FN"),
            "min_absmax must be at least 5.26621e-36 (448 * 2^-126, so that "
            "every f8E4M3FN scale is a normal f32), got 1e-40");
  EXPECT_NE(minAbsmaxRule(std::nextafter(float(127 * 0x1p-126), 0.0f), 127,
                          "i8"),
            "");
  EXPECT_EQ(topkColumnsRule(4, 4), "");
  EXPECT_EQ(topkColumnsRule(4, kShapeDynamic), "");
  EXPECT_EQ(topkColumnsRule(5, 4),
            "k must be at most N = 4 (the number of columns), got 5");
  EXPECT_EQ(columnIndexRule((int64_t(1) << 31) - 1), "");
  EXPECT_NE(columnIndexRule(int64_t(1) << 31), "");
  EXPECT_EQ(tokenCountRule("N * P", int64_t(1) << 29, 4), "");
  EXPECT_EQ(tokenCountRule("N * P", (int64_t(1) << 29) + 1, 4),
            "N * P = 536870913 * 4 = 2147483652 tokens do not fit the i32 "
            "token indices (at most 2^31)");
  EXPECT_EQ(tokenCountRule("K * P", int64_t(1) << 62, 4),
            "K * P = 4611686018427387904 * 4 (overflows int64) tokens do not "
            "fit the i32 token indices (at most 2^31)");
}

// The reference's check functions (the runtimes' checks) state the same
// bounds with the same words, after the op's name.
TEST(ShapesTest, ReferenceChecksUseTheSameRules) {
  namespace ref = ::indexpool::ref;
  using ref::ElementType;
  ref::HostTensor keys{ElementType::F32, {8, 2}, std::vector<double>(16, 1)};
  ref::HostTensor scores{ElementType::F32, {8}, std::vector<double>(8, 1)};
  EXPECT_EQ(ref::checkPool(keys, scores, nullptr, 4, double(1e-40f)),
            "pool: " + temperatureRule(double(1e-40f)));
  EXPECT_EQ(ref::checkPool(keys, scores, nullptr, 4, 0x1p-126), "");
  EXPECT_EQ(ref::checkQuantize(keys, ElementType::F8E4M3FN, 2e-36),
            "quantize: " + minAbsmaxRule(2e-36, 448, "f8E4M3FN"));
  EXPECT_EQ(ref::checkQuantize(keys, ElementType::I8, 2e-36), "");
  ref::CompressOptions options;
  options.poolSize = 4;
  options.quantizedType = ElementType::I8;
  options.minAbsmax = 0;
  EXPECT_EQ(ref::checkCompress(keys, scores, nullptr, options),
            "compress: " + minAbsmaxRule(0, 127, "i8"));
  // Shapes only (no data): products that would wrap are reported.
  ref::HostTensor hugePooled{ElementType::F32, {int64_t(1) << 61, 1}, {}};
  EXPECT_EQ(ref::checkReconstruct(hugePooled, nullptr, 4),
            "reconstruct: G*P = 2305843009213693952 * 4 overflows int64");
  ref::HostTensor hugeIdx{ElementType::I32, {1, int64_t(1) << 62}, {}};
  EXPECT_EQ(ref::checkExpand(hugeIdx, 4),
            "expand: K*P = 4611686018427387904 * 4 overflows int64");
  ref::HostTensor wraps{ElementType::F32, {int64_t(1) << 62, 4}, {}};
  EXPECT_EQ(ref::checkHadamard(wraps),
            "hadamard: the element count of x [4611686018427387904, 4] "
            "overflows int64");
}

TEST_F(IndexPoolDialectTest, OneDynamicSizeCannotHideAContradiction) {
  Type f32 = builder.getF32Type();
  int64_t dyn = ShapedType::kDynamic;
  func::FuncOp fn = makeFunc({tensor({dyn, 8}, f32), tensor({dyn}, f32)});
  // G is unknown from the keys; pooled says 10, the weights 11.
  auto pool = PoolOp::create(builder, builder.getUnknownLoc(),
                             tensor({10, 8}, f32), tensor({11, 4}, f32),
                             fn.getArgument(0), fn.getArgument(1), Value(),
                             builder.getI64IntegerAttr(4), FloatAttr());
  EXPECT_TRUE(failed(verify(pool)));
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_NE(messages[0].find("result 'weights' dimension 0 must be G = "
                             "floor(T / P) = 10 (as result 'pooled' dimension "
                             "0), got 11"),
            std::string::npos)
      << messages[0];
  // Agreeing sizes verify.
  messages.clear();
  pool->getResult(1).setType(tensor({10, 4}, f32));
  EXPECT_TRUE(succeeded(verify(pool)));
  EXPECT_TRUE(messages.empty());
}

TEST_F(IndexPoolDialectTest, MalformedOperandSegmentsAreRejectedNotRead) {
  // Three operands, weights doubled and keys empty: reading keys would go
  // past the operands.
  const char *source = R"mlir(
    func.func @f(%q: tensor<1x2x16xf32>, %w: tensor<1x2xf32>, %k: tensor<8x16xf32>) {
      %t = "indexpool.select"(%q, %w, %k) <{k = 2 : i64, pool_size = 4 : i64,
          operandSegmentSizes = array<i32: 1, 2, 0, 0, 0>}>
          : (tensor<1x2x16xf32>, tensor<1x2xf32>, tensor<8x16xf32>) -> tensor<1x8xi32>
      return
    })mlir";
  OwningOpRef<ModuleOp> parsed =
      parseSourceString<ModuleOp>(source, ParserConfig(&context));
  EXPECT_FALSE(parsed);
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_NE(messages[0].find("operandSegmentSizes must give weights exactly "
                             "one operand, got 2"),
            std::string::npos)
      << messages[0];
}

} // namespace
