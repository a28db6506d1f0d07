//===- TuningDbTest.cpp - tuningSizes, the sizes shape classes see --------===//
//
// Tools that write tuning databases name an op's shape with tuningSizes; the
// configure passes must match exactly those names and values (lit checks the
// passes, test/Transforms/configure*.mlir).
//
//===----------------------------------------------------------------------===//

#include "indexpool/Dialect/IndexPoolDialect.h"
#include "indexpool/Transforms/TuningDb.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <string>
#include <utility>
#include <vector>

using namespace mlir;
using namespace mlir::indexpool;

namespace {

using Sizes = std::vector<std::pair<std::string, int64_t>>;

/// The tuningSizes of every op of `body` (one func.func), in order.
std::vector<Sizes> sizesOf(const char *body) {
  MLIRContext context;
  context.loadDialect<IndexPoolDialect, func::FuncDialect>();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(body, &context);
  EXPECT_TRUE(module);
  std::vector<Sizes> result;
  if (!module)
    return result;
  module->walk([&](func::FuncOp func) {
    for (Operation &op : func.getBody().front())
      result.push_back(tuningSizes(&op));
  });
  return result;
}

TEST(TuningSizesTest, PoolingOpsNameTokensGroupsDimAndPoolSize) {
  std::vector<Sizes> sizes = sizesOf(R"mlir(
    func.func @f(%k: tensor<1000x128xbf16>, %s: tensor<1000xf32>)
        -> tensor<250x128xf8E4M3FN> {
      %q, %sc, %w = indexpool.compress %k, %s {pool_size = 4 : i64}
          : (tensor<1000x128xbf16>, tensor<1000xf32>)
          -> (tensor<250x128xf8E4M3FN>, tensor<250xf32>, tensor<250x4xf32>)
      return %q : tensor<250x128xf8E4M3FN>
    })mlir");
  ASSERT_EQ(sizes.size(), 2u);
  EXPECT_EQ(sizes[0], (Sizes{{"T", 1000}, {"G", 250}, {"D", 128}, {"P", 4}}));
  // Not an indexpool op: nothing to match.
  EXPECT_TRUE(sizes[1].empty());
}

TEST(TuningSizesTest, DynamicSizesAreLeftOut) {
  std::vector<Sizes> sizes = sizesOf(R"mlir(
    func.func @f(%k: tensor<?x64xf32>, %s: tensor<?xf32>,
                 %x: tensor<2x?x32xf32>)
        -> (tensor<?x64xf8E4M3FN>, tensor<2x?x32xf32>) {
      %q, %sc, %w = indexpool.compress %k, %s {pool_size = 8 : i64}
          : (tensor<?x64xf32>, tensor<?xf32>)
          -> (tensor<?x64xf8E4M3FN>, tensor<?xf32>, tensor<?x8xf32>)
      %y = indexpool.hadamard %x : (tensor<2x?x32xf32>) -> tensor<2x?x32xf32>
      return %q, %y : tensor<?x64xf8E4M3FN>, tensor<2x?x32xf32>
    })mlir");
  ASSERT_EQ(sizes.size(), 3u);
  // T and with it G are dynamic.
  EXPECT_EQ(sizes[0], (Sizes{{"D", 64}, {"P", 8}}));
  // N is the product of the leading dims: dynamic with one of them.
  EXPECT_EQ(sizes[1], (Sizes{{"D", 32}}));
}

TEST(TuningSizesTest, SelectionOpsNameQueryKeysAndK) {
  std::vector<Sizes> sizes = sizesOf(R"mlir(
    func.func @f(%q: tensor<2x64x128xbf16>, %w: tensor<2x64xf32>,
                 %k: tensor<512x128xbf16>, %l: tensor<2x512xf32>)
        -> (tensor<2x512xf32>, tensor<2x16xi32>) {
      %s = indexpool.score %q, %w, %k
          : (tensor<2x64x128xbf16>, tensor<2x64xf32>, tensor<512x128xbf16>)
          -> tensor<2x512xf32>
      %v, %i = indexpool.topk %l {k = 16 : i64}
          : (tensor<2x512xf32>) -> (tensor<2x16xf32>, tensor<2x16xi32>)
      return %s, %i : tensor<2x512xf32>, tensor<2x16xi32>
    })mlir");
  ASSERT_EQ(sizes.size(), 3u);
  EXPECT_EQ(sizes[0],
            (Sizes{{"M", 2}, {"H", 64}, {"N", 512}, {"D", 128}}));
  EXPECT_EQ(sizes[1], (Sizes{{"M", 2}, {"N", 512}, {"K", 16}}));
}

TEST(TuningSizesTest, VectorWidthRule) {
  for (int64_t lanes : {1, 2, 4, 8, 16, 32, 64})
    EXPECT_TRUE(isValidVectorWidth(lanes)) << lanes;
  for (int64_t lanes : {0, -8, 3, 12, 128})
    EXPECT_FALSE(isValidVectorWidth(lanes)) << lanes;
}

} // namespace
