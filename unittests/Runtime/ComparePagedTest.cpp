//===- ComparePagedTest.cpp - the near-tie rule of select_paged tokens ----===//
//
// select_paged's result is [B, S, k*P + P - 1]: k expanded pools, ranked by
// the reference's logits (a near tie may swap two of them), then P - 1 tail
// tokens that are always selected (they must match exactly).
//
//===----------------------------------------------------------------------===//

#include "indexpool/Runtime/Compare.h"

#include "gtest/gtest.h"

#include <vector>

using namespace indexpool::runtime;
using indexpool::ref::ElementType;
using indexpool::ref::HostTensor;
namespace ref = indexpool::ref;

namespace {

/// Two query rows (B = 1, S = 2), k = 2 pools of P = 2, one tail column:
/// rows of 5 tokens. Row 1's pools 1 and 2 tie within 1e-6 relative.
SelectionContext twoRows() {
  SelectionContext selection;
  selection.logits = HostTensor{ElementType::F32,
                                {2, 4},
                                {4.0, 3.0, 1.0, 0.0, //
                                 0.5, 2.0, 2.0 * (1 + 1e-6), 1.0}};
  selection.valid = HostTensor{ElementType::I32, {2}, {3, 4}};
  selection.poolSize = 2;
  selection.tailColumns = 1;
  return selection;
}

HostTensor reference() {
  return HostTensor{ElementType::I32, {1, 2, 5}, {0, 1, 2, 3, 6, //
                                                  4, 5, 2, 3, -1}};
}

TEST(ComparePagedTest, ASwapWithinTheToleranceIsANearTie) {
  SelectionContext selection = twoRows();
  HostTensor a = reference();
  // Row 1: pool 1 before pool 2, the reference's other order.
  a.data = {0, 1, 2, 3, 6, 2, 3, 4, 5, -1};
  Comparison c = compareWithReference(a, reference(), &selection);
  EXPECT_TRUE(c.ok) << c.reason;
  EXPECT_EQ(c.nearTieSwaps, 2);
  EXPECT_EQ(c.differing, 4);
  EXPECT_EQ(formatComparison(c, ElementType::I32),
            "max_abs_err=2 max_rel_err=1 differing=4/10 (40%) "
            "near_tie_swaps=2 -> ok");
  // Without the context the tokens must be equal.
  EXPECT_FALSE(compareWithReference(a, reference()).ok);
}

TEST(ComparePagedTest, ASwapBeyondTheToleranceIsRefused) {
  SelectionContext selection = twoRows();
  // 2e-5 relative apart: beyond f32's 1e-5.
  selection.logits.data[6] = 2.0 * (1 + 2e-5);
  HostTensor a = reference();
  a.data = {0, 1, 2, 3, 6, 2, 3, 4, 5, -1};
  Comparison c = compareWithReference(a, reference(), &selection);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.reason, "row 1 slot 0: index 1 (logit 2) instead of 2 "
                      "(logit 2.00004)");
  // Row 0: pool 2 for pool 1, logits 1 and 3.
  selection = twoRows();
  a = reference();
  a.data[2] = 4;
  a.data[3] = 5;
  c = compareWithReference(a, reference(), &selection);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.reason, "row 0 slot 2: index 2 (logit 1) instead of 1 "
                      "(logit 3)");
  // A pool beyond the row's valid entries (row 0 has 3) is never a tie.
  selection.logits.data[3] = 3.0;
  a.data[2] = 6;
  a.data[3] = 7;
  c = compareWithReference(a, reference(), &selection);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.reason, "row 0 slot 2: index 3 is outside the 3 valid columns");
}

TEST(ComparePagedTest, ATailTokenMismatchIsRefused) {
  SelectionContext selection = twoRows();
  HostTensor a = reference();
  a.data[4] = 7;
  Comparison c = compareWithReference(a, reference(), &selection);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.reason, "row 0 slot 4 (tail): 7, expected 6");
  // A tail token dropped, or one the row does not have.
  a = reference();
  a.data[4] = -1;
  EXPECT_FALSE(compareWithReference(a, reference(), &selection).ok);
  a = reference();
  a.data[9] = 6;
  c = compareWithReference(a, reference(), &selection);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.reason, "row 1 slot 4 (tail): 6, expected -1");
}

TEST(ComparePagedTest, AContextThatDoesNotFitIsRefused) {
  SelectionContext selection = twoRows();
  selection.tailColumns = 2; // 3 ranked columns: not whole pools
  Comparison c = compareWithReference(reference(), reference(), &selection);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.reason, "the selection context does not fit the result");
}

/// E = 4 entries of D = 8 per page, two pages; entry j's codes all c[j]
/// (scale 1), so with all-ones queries and positive weights its logit is
/// proportional to c[j]: entries 1 and 3 tie exactly.
TEST(ComparePagedTest, TheContextOfSelectPagedTellsTiesFromErrors) {
  ref::PageLayout layout{4, 8};
  std::vector<double> c = {1, 3, 2, 3, 0.5, 1.5};
  HostTensor pages =
      HostTensor::zeros(ElementType::I8, {2, layout.pageBytes()});
  HostTensor codes = HostTensor::zeros(ElementType::F8E4M3FN, {6, 8});
  for (int64_t j = 0; j < 6; ++j)
    for (int64_t d = 0; d < 8; ++d)
      codes.data[size_t(j * 8 + d)] = c[size_t(j)];
  // The table lists page 1 first.
  HostTensor table{ElementType::I32, {1, 2}, {1, 0}};
  for (int64_t j = 0; j < 6; ++j)
    ref::writeEntry(pages, layout,
                    int64_t(table.data[size_t(j / 4)]) * 4 + j % 4, codes, j,
                    1.0);
  HostTensor q{ElementType::BF16, {1, 1, 2, 8}, std::vector<double>(16, 1.0)};
  HostTensor w{ElementType::F32, {1, 1, 2}, {0.5, 0.25}};
  // 6 entries of P = 4 and a tail of 2 tokens.
  HostTensor lengths{ElementType::I32, {1, 1}, {26}};
  ASSERT_EQ(ref::checkSelectPaged(q, w, pages, table, lengths, 3, 4, layout),
            "");
  HostTensor want = ref::selectPaged(q, w, pages, table, lengths, 3, 4, layout);
  std::vector<double> pools = {1, 3, 2}, tail = {24, 25, -1};
  for (int64_t j = 0; j < 12; ++j)
    ASSERT_EQ(want.data[size_t(j)], pools[size_t(j / 4)] * 4 + j % 4);
  for (int64_t t = 0; t < 3; ++t)
    ASSERT_EQ(want.data[size_t(12 + t)], tail[size_t(t)]);

  SelectionContext selection =
      selectPagedContext(q, w, pages, table, lengths, 4, layout);
  EXPECT_EQ(selection.tailColumns, 3);
  EXPECT_EQ(selection.poolSize, 4);
  ASSERT_EQ(selection.logits.shape, (std::vector<int64_t>{1, 6}));
  for (int64_t j = 0; j < 6; ++j)
    EXPECT_EQ(selection.logits.data[size_t(j)], 0.75 * 8 * c[size_t(j)]);
  ASSERT_TRUE(selection.valid);
  EXPECT_EQ(selection.valid->data, std::vector<double>{6});

  // Entries 1 and 3 in the other order: a tie.
  HostTensor a = want;
  for (int64_t s = 0; s < 4; ++s) {
    a.data[size_t(s)] = double(12 + s);
    a.data[size_t(4 + s)] = double(4 + s);
  }
  Comparison comparison = compareWithReference(a, want, &selection);
  EXPECT_TRUE(comparison.ok) << comparison.reason;
  EXPECT_EQ(comparison.nearTieSwaps, 2);
  // Entry 5 (1.5) for entry 2 (2): an error.
  a = want;
  for (int64_t s = 0; s < 4; ++s)
    a.data[size_t(8 + s)] = double(20 + s);
  comparison = compareWithReference(a, want, &selection);
  EXPECT_FALSE(comparison.ok);
  EXPECT_EQ(comparison.reason,
            "row 0 slot 8: index 5 (logit 9) instead of 2 (logit 12)");
}

} // namespace

/// comparePages on i4 pages (E = 2 entries of D = 4: 2 code bytes an
/// entry): equal pages compare equal; one code one step off is one
/// differing code, off by one; a code four steps off fails. The bytes of an
/// entry are its D / 2 code bytes, not D (which would read past the page).
TEST(ComparePagedTest, I4PagesCompareCodeByCode) {
  ref::PageLayout layout{2, 4, ElementType::I4};
  ASSERT_EQ(layout.pageBytes(), 12);
  HostTensor codes{ElementType::I4, {2, 4}, {1, -2, 7, -7, 0, -1, 3, 5}};
  HostTensor expected =
      HostTensor::zeros(ElementType::I8, {1, layout.pageBytes()});
  ref::writeEntry(expected, layout, 0, codes, 0, 0.5);
  ref::writeEntry(expected, layout, 1, codes, 1, 0.25);
  Comparison same = comparePages(expected, expected, layout);
  EXPECT_TRUE(same.ok) << same.reason;
  EXPECT_EQ(same.differing, 0);

  HostTensor close = codes;
  close.data[5] = -2; // entry 1, code 1: -1 -> -2
  HostTensor actual = HostTensor::zeros(ElementType::I8, {1, 12});
  ref::writeEntry(actual, layout, 0, close, 0, 0.5);
  ref::writeEntry(actual, layout, 1, close, 1, 0.25);
  Comparison one = comparePages(actual, expected, layout);
  EXPECT_EQ(one.differing, 1);
  EXPECT_EQ(one.offByOne, 1);

  HostTensor far = codes;
  far.data[7] = 1; // entry 1, code 3: 5 -> 1
  ref::writeEntry(actual, layout, 0, far, 0, 0.5);
  ref::writeEntry(actual, layout, 1, far, 1, 0.25);
  EXPECT_FALSE(comparePages(actual, expected, layout).ok);
}
