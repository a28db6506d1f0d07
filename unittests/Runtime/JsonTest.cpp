//===- JsonTest.cpp - the strict JSON reader ------------------------------===//

#include "indexpool/Runtime/Json.h"
#include "indexpool/Runtime/Printable.h"

#include "gtest/gtest.h"

#include <string>

using namespace indexpool::runtime;

namespace {

/// The error of parsing `text` ("" when it parses).
std::string errorOf(const std::string &text) {
  json::Value v;
  std::string error;
  return json::parse(text, v, error) ? "" : error;
}

TEST(JsonTest, ReadsEveryKindWithLocations) {
  json::Value v;
  std::string error;
  ASSERT_TRUE(json::parse(R"({
  "a": [1, -2.5, 3e2, true, false, null],
  "b": {"nested": "x\"y\\z\/\n\u00e9\ud83d\ude00"},
  "big": 123456789012345678,
  "huge": 1e300, "zero": -0
})",
                          v, error))
      << error;
  ASSERT_TRUE(v.isObject());
  EXPECT_EQ(v.keys,
            (std::vector<std::string>{"a", "b", "big", "huge", "zero"}));
  const json::Value *a = v.find("a");
  ASSERT_TRUE(a && a->isArray());
  ASSERT_EQ(a->elements.size(), 6u);
  EXPECT_TRUE(a->elements[0].isInteger);
  EXPECT_EQ(a->elements[0].integer, 1);
  EXPECT_FALSE(a->elements[1].isInteger);
  EXPECT_EQ(a->elements[1].number, -2.5);
  EXPECT_FALSE(a->elements[2].isInteger); // 3e2 is not written as an integer
  EXPECT_EQ(a->elements[2].number, 300);
  EXPECT_TRUE(a->elements[3].boolean);
  EXPECT_TRUE(a->elements[4].isBool() && !a->elements[4].boolean);
  EXPECT_TRUE(a->elements[5].isNull());
  EXPECT_EQ(a->line, 2);
  EXPECT_EQ(a->column, 8);
  EXPECT_EQ(a->elements[1].location(), "2:12");
  EXPECT_EQ(v.find("b")->find("nested")->string,
            "x\"y\\z/\n\xC3\xA9\xF0\x9F\x98\x80");
  EXPECT_EQ(v.find("big")->integer, 123456789012345678);
  EXPECT_EQ(v.find("huge")->number, 1e300);
  EXPECT_FALSE(v.find("huge")->isInteger);
  EXPECT_TRUE(v.find("zero")->isInteger);
  EXPECT_EQ(v.find("missing"), nullptr);
  // Raw UTF-8 passes through; an integer too large for int64 is a number.
  ASSERT_TRUE(
      json::parse("[\"\xE2\x82\xAC\", 99999999999999999999]", v, error));
  EXPECT_EQ(v.elements[0].string, "\xE2\x82\xAC");
  EXPECT_FALSE(v.elements[1].isInteger);
  EXPECT_EQ(v.elements[1].number, 1e20);
}

TEST(JsonTest, ErrorsGiveLineAndColumn) {
  EXPECT_EQ(errorOf("{\n  \"a\": 1,\n  \"b\": [1, 2,]\n}"),
            "3:14: expected a value after ',', got ']'");
  EXPECT_EQ(errorOf("{\"a\": 1,}"),
            "1:9: expected a string key after ',', got character '}'");
  EXPECT_EQ(errorOf("{\"a\" 1}"),
            "1:6: expected ':' after the key \"a\", got character '1'");
  EXPECT_EQ(errorOf("{\"a\": 1 \"b\": 2}"),
            "1:9: expected ',' or '}' after an object member, got character "
            "'\"'");
  EXPECT_EQ(errorOf("[1 2]"),
            "1:4: expected ',' or ']' after an array element, got character "
            "'2'");
  EXPECT_EQ(errorOf("{\"a\": 1, \"a\": 2}"), "1:10: duplicate key \"a\"");
  EXPECT_EQ(errorOf(""), "1:1: unexpected end of input, expected a value");
  EXPECT_EQ(errorOf("  \n  "),
            "2:3: unexpected end of input, expected a value");
  EXPECT_EQ(errorOf("[1] x"), "1:5: unexpected character 'x' after the JSON "
                              "value");
  EXPECT_EQ(errorOf("// comment\n{}"),
            "1:1: unexpected character '/', expected a value");
  EXPECT_EQ(errorOf("[\"abc"), "1:2: unterminated string");
  EXPECT_EQ(errorOf("[\"a\tb\"]"),
            "1:4: control character byte \\x09 in a string (write it as an "
            "escape)");
  EXPECT_EQ(errorOf("[\"\\q\"]"),
            "1:3: invalid escape: backslash followed by character 'q' in a "
            "string");
  EXPECT_EQ(errorOf("[\"\\u12G4\"]"),
            "1:7: invalid \\u escape: expected a hex digit, got character 'G'");
  EXPECT_EQ(errorOf("[\"\\ud83d\"]"),
            "1:3: unpaired high surrogate in a \\u escape");
  EXPECT_EQ(errorOf("[\"\\ude00\"]"),
            "1:3: unpaired low surrogate in a \\u escape");
  EXPECT_EQ(errorOf("[\"\xC3\x28\"]"), "1:3: invalid UTF-8 in a string");
  EXPECT_EQ(errorOf("[\"\xED\xA0\x80\"]"), "1:3: invalid UTF-8 in a string");
  EXPECT_EQ(errorOf("[01]"),
            "1:3: invalid number: leading zeros are not allowed");
  EXPECT_EQ(errorOf("[1.]"),
            "1:4: invalid number: expected a digit after '.', got character "
            "']'");
  EXPECT_EQ(errorOf("[1e+]"),
            "1:5: invalid number: expected a digit in the exponent, got "
            "character ']'");
  EXPECT_EQ(errorOf("[-]"),
            "1:3: invalid number: expected a digit, got character ']'");
  EXPECT_EQ(errorOf("[+1]"), "1:2: unexpected character '+', expected a value");
  EXPECT_EQ(errorOf("[1x]"),
            "1:3: invalid number: unexpected character 'x'");
  EXPECT_EQ(errorOf("[1e999]"), "1:2: number 1e999 is out of range");
  EXPECT_EQ(errorOf("[NaN]"), "1:2: unexpected character 'N', expected a "
                              "value");
  EXPECT_EQ(errorOf("[tru]"),
            "1:2: invalid literal (expected true, false or null)");
  EXPECT_EQ(errorOf("[truex]"),
            "1:6: invalid literal (expected true, false or null)");
}

TEST(JsonTest, EchoedKeysAreEscaped) {
  // Errors are one line even when the echoed key holds control bytes.
  EXPECT_EQ(errorOf("{\"a\\nb\" 1}"),
            "1:9: expected ':' after the key \"a\\nb\", got character '1'");
  EXPECT_EQ(errorOf("{\"\\u0001\": 1, \"\\u0001\": 2}"),
            "1:15: duplicate key \"\\x01\"");
}

TEST(PrintableTest, EscapesAndShortens) {
  EXPECT_EQ(printable("plain text"), "plain text");
  EXPECT_EQ(printable("a\nb\tc\r"), "a\\nb\\tc\\r");
  EXPECT_EQ(printable("say \"hi\""), "say \\\"hi\\\"");
  EXPECT_EQ(printable("it's", '\''), "it\\'s");
  EXPECT_EQ(printable(std::string("\x01\xff", 2)), "\\x01\\xFF");
  EXPECT_EQ(printable("abcdef", '"', 3), "abc...");
}

TEST(JsonTest, DeepNestingIsAnErrorNotACrash) {
  std::string deep(300, '[');
  EXPECT_EQ(errorOf(deep), "1:257: nesting deeper than 256 levels");
  std::string ok = std::string(200, '[') + std::string(200, ']');
  EXPECT_EQ(errorOf(ok), "");
  // Exactly the limit is fine.
  EXPECT_EQ(errorOf(std::string(256, '[') + std::string(256, ']')), "");
  // Far deeper than the stack would allow a recursive parser.
  EXPECT_EQ(errorOf(std::string(100000, '[')),
            "1:257: nesting deeper than 256 levels");
}

// The check that runs before llvm::json::parse (tuning databases), which
// recurses without a limit.
TEST(JsonTest, NestingDepthCheckWithoutParsing) {
  std::string error;
  EXPECT_TRUE(json::checkNestingDepth(std::string(256, '[') +
                                          std::string(256, ']'),
                                      error));
  EXPECT_FALSE(json::checkNestingDepth(std::string(100000, '['), error));
  EXPECT_EQ(error, "1:257: nesting deeper than 256 levels");
  EXPECT_FALSE(json::checkNestingDepth(
      "[\n  " + std::string(300, '{'), error));
  EXPECT_EQ(error, "2:258: nesting deeper than 256 levels");
  // Brackets inside strings, also after escaped quotes, do not nest.
  std::string inString = "[\"" + std::string(300, '[') + "\\\"" +
                         std::string(300, '{') + "\"]";
  EXPECT_TRUE(json::checkNestingDepth(inString, error)) << error;
  // Closing brackets lower the depth again.
  std::string wide;
  for (int i = 0; i < 1000; ++i)
    wide += std::string(200, '[') + std::string(200, ']');
  EXPECT_TRUE(json::checkNestingDepth(wide, error)) << error;
}

} // namespace
