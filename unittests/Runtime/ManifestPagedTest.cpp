//===- ManifestPagedTest.cpp - the paged ops in manifests -----------------===//
//
// compress_paged, append_paged and select_paged (docs/serving-layout.md) in
// a hand-written manifest: they load with their layout properties, wrong
// shapes get the reference's one line, the reference run equals calling
// Reference/Paged.h directly, pages compare as entries and tokens with the
// near-tie rule, and random inputs are valid slots, page ids and lengths.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Runtime/Manifest.h"
#include "indexpool/Runtime/ReferenceRun.h"

#include "indexpool/Reference/Paged.h"

#include "gtest/gtest.h"

#include <random>
#include <set>
#include <string>

using namespace indexpool::runtime;
namespace ref = indexpool::ref;
using ref::ElementType;
using ref::HostTensor;

namespace {

/// A serving step: a prefill of 32 tokens compressed into 4 pages of E = 8
/// entries (D = 16: pages of 8 * (16 + 4) = 160 bytes), 5 new tokens per
/// sequence appended through a block table of 2 pages per sequence, then
/// one query row per sequence selecting k = 4 pools of P = 4 and its tail.
constexpr const char *kServing = R"({
  "format_version": 3, "chip": "sm_90", "function": "serve",
  "binary": {"path": "serve.ptx", "format": "ptx"},
  "buffers": [
    {"id": 0, "role": "input", "index": 0, "type": "bf16", "shape": [32, 16]},
    {"id": 1, "role": "input", "index": 1, "type": "f32", "shape": [32]},
    {"id": 2, "role": "input", "index": 2, "type": "i8", "shape": [4, 160]},
    {"id": 3, "role": "input", "index": 3, "type": "i64", "shape": [8]},
    {"id": 4, "role": "input", "index": 4, "type": "bf16", "shape": [2, 5, 16]},
    {"id": 5, "role": "input", "index": 5, "type": "f32", "shape": [2, 5]},
    {"id": 6, "role": "input", "index": 6, "type": "bf16", "shape": [2, 3, 16]},
    {"id": 7, "role": "input", "index": 7, "type": "f32", "shape": [2, 3]},
    {"id": 8, "role": "input", "index": 8, "type": "i32", "shape": [2]},
    {"id": 9, "role": "input", "index": 9, "type": "i32", "shape": [2, 2]},
    {"id": 10, "role": "input", "index": 10, "type": "bf16", "shape": [2, 1, 4, 16]},
    {"id": 11, "role": "input", "index": 11, "type": "f32", "shape": [2, 1, 4]},
    {"id": 12, "role": "input", "index": 12, "type": "i32", "shape": [2, 1]},
    {"id": 13, "role": "intermediate", "type": "i8", "shape": [4, 160]},
    {"id": 14, "role": "output", "index": 0, "type": "i8", "shape": [4, 160]},
    {"id": 15, "role": "output", "index": 1, "type": "bf16", "shape": [2, 3, 16]},
    {"id": 16, "role": "output", "index": 2, "type": "f32", "shape": [2, 3]},
    {"id": 17, "role": "output", "index": 3, "type": "i32", "shape": [2, 1, 19]}
  ],
  "launches": [],
  "computes": [
    {"op": "compress_paged", "operands": {"keys": 0, "scores": 1, "pages": 2, "slots": 3},
     "results": [13],
     "properties": {"pool_size": 4, "page_entries": 8, "codes": "f8E4M3FN"}},
    {"op": "append_paged",
     "operands": {"keys": 4, "scores": 5, "tail_keys": 6, "tail_scores": 7,
                  "lengths": 8, "pages": 13, "block_table": 9},
     "results": [14, 15, 16],
     "properties": {"pool_size": 4, "page_entries": 8, "temperature": 0.5}},
    {"op": "select_paged",
     "operands": {"query": 10, "weights": 11, "pages": 14, "block_table": 9,
                  "lengths": 12},
     "results": [17], "properties": {"k": 4, "pool_size": 4, "page_entries": 8}}
  ]
})";

/// kServing with the first occurrence of `from` replaced by `to`.
std::string edited(const std::string &from, const std::string &to) {
  std::string text = kServing;
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos)
    text.replace(at, from.size(), to);
  return text;
}

/// The error of loading `text` as "m.json" ("" when it loads).
std::string errorOf(const std::string &text) {
  Manifest m;
  std::string error;
  return parseManifest(text, "m.json", "/dir", m, error) ? "" : error;
}

class ManifestPagedTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string error;
    ASSERT_TRUE(parseManifest(kServing, "serve.json", ".", manifest, error))
        << error;
  }
  Manifest manifest;
};

TEST_F(ManifestPagedTest, ThePagedOpsLoadWithTheirLayout) {
  ASSERT_EQ(manifest.computes.size(), 3u);
  const Compute &compress = manifest.computes[0];
  EXPECT_EQ(compress.op, "compress_paged");
  EXPECT_EQ(compress.pageEntries, 8);
  EXPECT_EQ(compress.codes, ElementType::F8E4M3FN);
  EXPECT_FALSE(compress.scalesFirst);
  EXPECT_EQ(compress.operand("slots"), 3);
  EXPECT_EQ(manifest.computes[1].temperature, 0.5);
  EXPECT_EQ(manifest.computes[2].k, 4);
  std::string error;
  // i8 codes and the scales first.
  Manifest i8;
  ASSERT_TRUE(parseManifest(edited("\"codes\": \"f8E4M3FN\"",
                                   "\"codes\": \"i8\", \"scales_first\": true"),
                            "m.json", ".", i8, error))
      << error;
  EXPECT_EQ(i8.computes[0].codes, ElementType::I8);
  EXPECT_TRUE(i8.computes[0].scalesFirst);
  EXPECT_EQ(i8.computes[1].codes, ElementType::F8E4M3FN);
}

TEST(ManifestPagedErrorsTest, DefaultsAreTheDialects) {
  // Without page_entries the pages hold 64 entries: 64 * 20 bytes a page.
  EXPECT_EQ(errorOf(edited(", \"page_entries\": 8, \"codes\": \"f8E4M3FN\"",
                           "")),
            "m.json:26:5: computes[0] (compress_paged): pages must be "
            "[pages, E * (D + 4)] = [pages, 1280] of i8, got [4, 160] of i8");
}

TEST(ManifestPagedErrorsTest, TheCodesTypeIsATypeName) {
  EXPECT_EQ(errorOf(edited("\"codes\": \"f8E4M3FN\"", "\"codes\": \"f64\"")),
            "m.json:28:65: computes[0].properties.codes: unknown code type "
            "\"f64\" (known: f8E4M3FN, i8, i4 or f4E2M1FN)");
  EXPECT_EQ(errorOf(edited("\"codes\": \"f8E4M3FN\"", "\"codes\": \"f32\"")),
            "m.json:28:65: computes[0].properties.codes: unknown code type "
            "\"f32\" (known: f8E4M3FN, i8, i4 or f4E2M1FN)");
  EXPECT_EQ(errorOf(edited("\"codes\": \"f8E4M3FN\"", "\"codes\": 8")),
            "m.json:28:65: computes[0].properties.codes: expected the name of "
            "a code type, f8E4M3FN, i8, i4 or f4E2M1FN, got 8");
  EXPECT_EQ(errorOf(edited("\"page_entries\": 8, \"codes\"",
                           "\"page_entries\": true, \"codes\"")),
            "m.json:28:53: computes[0].properties.page_entries: expected an "
            "integer in [0, 2147483647], got true");
  EXPECT_EQ(errorOf(edited("\"pool_size\": 4, \"page_entries\": 8, \"codes\"",
                           "\"pool_size\": 4, \"page_entries\": 8, "
                           "\"scales_first\": 1, \"codes\"")),
            "m.json:28:72: computes[0].properties.scales_first: expected true "
            "or false, got 1");
}

TEST(ManifestPagedErrorsTest, WrongShapesGetTheReferencesLine) {
  // compress_paged: one slot per group of P keys.
  EXPECT_EQ(errorOf(edited("\"type\": \"i64\", \"shape\": [8]",
                           "\"type\": \"i64\", \"shape\": [7]")),
            "m.json:26:5: computes[0] (compress_paged): slots must be [G] = "
            "[8] (one per group of P keys), got [7]");
  EXPECT_EQ(errorOf(edited("\"type\": \"i64\", \"shape\": [8]",
                           "\"type\": \"i32\", \"shape\": [8]")),
            "m.json:26:5: computes[0] (compress_paged): slots must have "
            "element type i64, got i32");
  // append_paged: the tails hold P - 1 tokens.
  EXPECT_EQ(errorOf(edited("\"type\": \"f32\", \"shape\": [2, 3]}",
                           "\"type\": \"f32\", \"shape\": [2, 4]}")),
            "m.json:29:5: computes[1] (append_paged): tail_scores must be "
            "[2, 3] of the scores' type");
  EXPECT_EQ(errorOf(edited("\"index\": 1, \"type\": \"bf16\"",
                           "\"index\": 1, \"type\": \"f32\"")),
            "m.json:29:5: computes[1] (append_paged): result "
            "'new_tail_keys' must have the element type of tail_keys, bf16, "
            "got f32");
  EXPECT_EQ(errorOf(edited("[2, 5, 16]", "[10, 16]")),
            "m.json:29:5: computes[1] (append_paged): keys must be [B, n, D], "
            "got [10, 16]");
  // select_paged: the query's rank first (its D is the pages'); lengths
  // [B, S]; k within a table row's 2 * 8 entries.
  EXPECT_EQ(errorOf(edited("[2, 1, 4, 16]", "[2, 4, 16]")),
            "m.json:34:5: computes[2] (select_paged): query must be [B, S, H, "
            "D], got [2, 4, 16]");
  EXPECT_EQ(errorOf(edited("\"type\": \"i32\", \"shape\": [2, 1]}",
                           "\"type\": \"i32\", \"shape\": [2]}")),
            "m.json:34:5: computes[2] (select_paged): lengths must be [B, S] "
            "= [2, 1], got [2]");
  EXPECT_EQ(errorOf(edited("\"k\": 4", "\"k\": 17")),
            "m.json:34:5: computes[2] (select_paged): k must be at most "
            "max_pages * E = 16 (the entries a block table row holds), got 17");
  EXPECT_EQ(errorOf(edited("\"k\": 4, \"pool_size\": 4",
                           "\"k\": 4, \"pool_size\": 3")),
            "m.json:34:5: computes[2] (select_paged): pool_size must be 1 or a "
            "power of two in [2, 64], got 3");
  // The result's shape is what the op gives: [B, S, k * P + P - 1].
  EXPECT_EQ(errorOf(edited("[2, 1, 19]", "[2, 1, 16]")),
            "m.json:37:18: computes[2].results[0]: buffer 17 is [2, 1, 16], "
            "but result 'tokens' of select_paged is [2, 1, 19]");
}

TEST_F(ManifestPagedTest, TheReferenceRunIsPagedH) {
  std::vector<HostTensor> inputs = generateRandomInputs(manifest, 5);
  ReferenceValues values;
  std::string error;
  ASSERT_TRUE(runReference(manifest, inputs, values, error)) << error;

  ref::PageLayout layout;
  layout.entries = 8;
  layout.dim = 16;
  ref::CompressOptions options;
  HostTensor pages = ref::compressPaged(inputs[0], inputs[1], nullptr,
                                        inputs[2], inputs[3], options, layout);
  EXPECT_EQ(values.at(13).data, pages.data);
  options.temperature = 0.5;
  ref::AppendResult appended =
      ref::appendPaged(inputs[4], inputs[5], inputs[6], inputs[7], inputs[8],
                       nullptr, pages, inputs[9], options, layout);
  EXPECT_EQ(values.at(14).data, appended.pages.data);
  EXPECT_EQ(values.at(15).data, appended.tailKeys.data);
  EXPECT_EQ(values.at(16).data, appended.tailScores.data);
  HostTensor tokens =
      ref::selectPaged(inputs[10], inputs[11], appended.pages, inputs[9],
                       inputs[12], 4, 4, layout);
  EXPECT_EQ(values.at(17).data, tokens.data);

  // Pages compare as entries, tokens with the near-tie rule.
  ASSERT_TRUE(pageLayoutOf(manifest, 14));
  EXPECT_EQ(pageLayoutOf(manifest, 14)->dim, 16);
  EXPECT_EQ(pageLayoutOf(manifest, 13)->entries, 8);
  EXPECT_FALSE(pageLayoutOf(manifest, 15)); // new_tail_keys
  EXPECT_FALSE(pageLayoutOf(manifest, 17));
  std::optional<SelectionContext> selection =
      selectionContextOf(manifest, values, 17);
  ASSERT_TRUE(selection);
  EXPECT_EQ(selection->poolSize, 4);
  EXPECT_EQ(selection->tailColumns, 3);
  for (int64_t id : {14, 15, 16, 17}) {
    Comparison same = compareResult(manifest, values, id, values.at(id));
    EXPECT_TRUE(same.ok) << id << ": " << same.reason;
  }
  // A wrong byte: the top byte of page 0's last scale.
  HostTensor wrong = values.at(14);
  wrong.data[159] = wrong.data[159] == 1 ? 2 : 1;
  Comparison changed = compareResult(manifest, values, 14, wrong);
  EXPECT_FALSE(changed.ok);
  EXPECT_FALSE(compareResult(manifest, values, 99, wrong).ok);
}

TEST_F(ManifestPagedTest, RandomInputsAreValidSlotsPageIdsAndLengths) {
  std::vector<InputDescription> descriptions = describeInputs(manifest);
  ASSERT_EQ(descriptions.size(), 13u);
  using D = ref::InputDistribution;
  // slots: distinct entries of 4 pages of 8.
  EXPECT_EQ(descriptions[3].distribution, D::PageSlots);
  EXPECT_EQ(descriptions[3].lengthBound, 32);
  EXPECT_EQ(descriptions[2].distribution, D::Default); // pages: random bytes
  // append's lengths leave room for the 5 new tokens: 2 * 8 * 4 - 5.
  EXPECT_EQ(descriptions[8].distribution, D::ValidLengths);
  EXPECT_EQ(descriptions[8].lengthBound, 59);
  EXPECT_EQ(descriptions[8].use, "lengths of computes[1] (append_paged)");
  // The block table: ids of the 4 pages, named by its first use.
  EXPECT_EQ(descriptions[9].distribution, D::PageIds);
  EXPECT_EQ(descriptions[9].lengthBound, 4);
  EXPECT_EQ(descriptions[9].use, "block_table of computes[1] (append_paged)");
  // select's lengths: every entry of a table row and a tail of P - 1.
  EXPECT_EQ(descriptions[12].distribution, D::ValidLengths);
  EXPECT_EQ(descriptions[12].lengthBound, 2 * 8 * 4 + 3);

  // The draws are the shared sampler's (as indexpool-run's), in input order.
  std::vector<HostTensor> inputs = generateRandomInputs(manifest, 9);
  std::mt19937_64 rng(9);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Buffer &b = *manifest.inputs()[i];
    HostTensor expected = ref::drawRandomInput(
        descriptions[i].distribution, b.type, b.shape, rng,
        descriptions[i].lengthBound);
    EXPECT_EQ(inputs[i].data, expected.data) << i;
  }
  EXPECT_EQ(inputs[3].type, ElementType::I64);
  std::set<double> slots;
  for (double slot : inputs[3].data) {
    EXPECT_GE(slot, -1);
    EXPECT_LT(slot, 32);
    EXPECT_TRUE(slot < 0 || slots.insert(slot).second) << slot;
  }
  for (double page : inputs[9].data) {
    EXPECT_GE(page, 0);
    EXPECT_LT(page, 4);
  }
  // Every seed gives inputs the reference accepts.
  for (uint64_t seed = 0; seed < 20; ++seed) {
    ReferenceValues values;
    std::string error;
    EXPECT_TRUE(runReference(manifest, generateRandomInputs(manifest, seed),
                             values, error))
        << seed << ": " << error;
  }
}

/// test/Tools/Inputs/launch/paged-*.json, which the lit test launches, load,
/// bind and run on the reference.
TEST(ManifestPagedFilesTest, TheLaunchInputsRunOnTheReference) {
  for (const char *name : {"paged-compress", "paged-select", "paged-append"}) {
    Manifest symbolic, bound;
    std::string error;
    std::string path =
        std::string(INDEXPOOL_TEST_INPUTS) + "/" + name + ".json";
    ASSERT_TRUE(loadManifest(path, symbolic, error)) << error;
    std::vector<std::vector<int64_t>> shapes;
    for (const Buffer *input : symbolic.inputs())
      shapes.push_back(input->shape);
    if (symbolic.needsBinding()) // paged-append: n = 5 new tokens
      shapes[0] = {2, 5, 16}, shapes[1] = {2, 5};
    ASSERT_TRUE(bindSizes(symbolic, shapes, 132, bound, error)) << error;
    ReferenceValues values;
    ASSERT_TRUE(runReference(bound, generateRandomInputs(bound, 1), values,
                             error))
        << name << ": " << error;
    for (const Buffer *output : bound.outputs()) {
      Comparison same =
          compareResult(bound, values, output->id, values.at(output->id));
      EXPECT_TRUE(same.ok) << name << ": " << same.reason;
    }
  }
}

} // namespace
