//===- OpContractTest.cpp - the op contract is the ODS definition ---------===//
//
// OpContract.h restates what dialect/IndexPoolOps.td declares; these tests
// make the two unable to drift. Names, order and element-type words are
// compared with the op doc mlir-tblgen generates from the .td (the build's
// IndexPoolDialect.md); required and optional operands, property kinds and
// defaults with instances of the registered ops.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Dialect/OpContract.h"
#include "indexpool/Dialect/IndexPoolDialect.h"
#include "indexpool/Dialect/IndexPoolOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::indexpool;

namespace {

/// One op as the generated doc lists it: (name, description or MLIR type).
struct DocOp {
  std::vector<std::pair<std::string, std::string>> operands, results,
      attributes;
};

/// The ops of the doc mlir-tblgen generates from the .td files, by name
/// without "indexpool.".
std::map<std::string, DocOp> readOpDoc() {
  std::map<std::string, DocOp> ops;
  auto buffer = llvm::MemoryBuffer::getFile(INDEXPOOL_OP_DOC);
  if (!buffer)
    return ops;
  DocOp *op = nullptr;
  std::vector<std::pair<std::string, std::string>> *list = nullptr;
  SmallVector<StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n');
  for (StringRef line : lines) {
    if (line.consume_front("### `indexpool.")) {
      op = &ops[line.take_until([](char c) { return c == '`'; }).str()];
      list = nullptr;
    } else if (!op) {
      continue;
    } else if (line.starts_with("#### Attributes") ||
               line.starts_with("#### Properties")) {
      list = &op->attributes;
    } else if (line.starts_with("#### Operands")) {
      list = &op->operands;
    } else if (line.starts_with("#### Results")) {
      list = &op->results;
    } else if (line.starts_with("#")) {
      list = nullptr;
    } else if (list && line.consume_front("<tr><td><code>")) {
      // <tr><td><code>NAME</code></td><td>TYPE</td><td>...
      auto [name, rest] = line.split("</code></td><td>");
      list->emplace_back(name.str(), rest.split("</td>").first.str());
    } else if (list && line.consume_front("| `")) {
      // | `NAME` | DESCRIPTION |
      auto [name, rest] = line.split("` | ");
      list->emplace_back(name.str(), rest.rsplit(" |").first.str());
    }
  }
  return ops;
}

TEST(OpContractTest, EveryOpHasExactlyOneEntry) {
  MLIRContext context;
  context.loadDialect<IndexPoolDialect>();
  llvm::StringSet<> registered;
  for (RegisteredOperationName name :
       context.getRegisteredOperationsByDialect("indexpool"))
    registered.insert(name.getStringRef().drop_front(strlen("indexpool.")));
  llvm::StringSet<> listed;
  for (const OpContract &op : opContracts()) {
    EXPECT_TRUE(listed.insert(op.name).second) << op.name << " listed twice";
    EXPECT_TRUE(registered.contains(op.name)) << op.name << " is no op";
  }
  for (const auto &name : registered)
    EXPECT_TRUE(listed.contains(name.getKey())) << name.getKey().str();
}

/// The types an element set holds, by name, sorted.
std::vector<std::string> namesIn(const ElementSet &set) {
  std::vector<std::string> names;
  for (int i = 0; i < kNumElements; ++i)
    if (set.contains(Element(i)))
      names.push_back(elementName(Element(i)));
  std::sort(names.begin(), names.end());
  return names;
}

/// The types the words of a set name ("a, b or c"), sorted; the words must
/// be a list in that form.
std::vector<std::string> wordsOf(const ElementSet &set) {
  std::string text = set.text;
  std::vector<std::string> names;
  size_t start = 0;
  while (true) {
    size_t comma = text.find(", ", start), orWord = text.find(" or ", start);
    size_t end = std::min(comma, orWord);
    names.push_back(text.substr(start, end - start));
    if (end == std::string::npos)
      break;
    start = end + (end == comma ? 2 : 4);
  }
  std::sort(names.begin(), names.end());
  return names;
}

TEST(OpContractTest, ElementSetWordsNameTheirTypes) {
  for (const OpContract &op : opContracts()) {
    for (const OperandContract &o : op.operands)
      EXPECT_EQ(wordsOf(o.types), namesIn(o.types)) << op.name << " " << o.name;
    for (const ResultContract &r : op.results) {
      EXPECT_EQ(wordsOf(r.types), namesIn(r.types)) << op.name << " " << r.name;
      if (r.f32OrTypeOf)
        EXPECT_NE(op.findOperand(r.f32OrTypeOf), nullptr) << op.name;
    }
  }
  for (int i = 0; i < kNumElements; ++i)
    EXPECT_EQ(parseElement(elementName(Element(i))), Element(i));
  EXPECT_EQ(parseElement("f64"), std::nullopt);
}

TEST(OpContractTest, NamesOrderAndWordsAreTheGeneratedDoc) {
  std::map<std::string, DocOp> doc = readOpDoc();
  ASSERT_EQ(doc.size(), opContracts().size())
      << "the generated doc " << INDEXPOOL_OP_DOC;
  for (const OpContract &op : opContracts()) {
    SCOPED_TRACE(op.name);
    ASSERT_TRUE(doc.count(op.name));
    const DocOp &d = doc.at(op.name);
    ASSERT_EQ(d.operands.size(), op.operands.size());
    for (size_t i = 0; i < op.operands.size(); ++i) {
      EXPECT_EQ(d.operands[i].first, op.operands[i].name);
      EXPECT_EQ(d.operands[i].second,
                std::string("ranked tensor of ") + op.operands[i].types.text);
    }
    ASSERT_EQ(d.results.size(), op.results.size());
    for (size_t i = 0; i < op.results.size(); ++i) {
      EXPECT_EQ(d.results[i].first, op.results[i].name);
      EXPECT_EQ(d.results[i].second,
                std::string("ranked tensor of ") + op.results[i].types.text);
    }
    ASSERT_EQ(d.attributes.size(), op.properties.size());
    for (size_t i = 0; i < op.properties.size(); ++i) {
      EXPECT_EQ(d.attributes[i].first, op.properties[i].name);
      const char *storage[] = {"::mlir::IntegerAttr", "::mlir::FloatAttr",
                               "::mlir::UnitAttr", "::mlir::TypeAttr"};
      static_assert(std::size(storage) == size_t(PropertyKind::Type) + 1);
      EXPECT_EQ(d.attributes[i].second, storage[int(op.properties[i].kind)]);
    }
  }
}

/// Whether `error` is a verifier's complaint about the number of operands
/// (OpDefinition.h's traits, ODS's Optional groups).
bool isCountError(const std::string &error) {
  for (const char *words :
       {"operands, but found", "requires a single operand",
        "requires zero operands", "requires 0 or 1 element"})
    if (error.find(words) != std::string::npos)
      return true;
  return false;
}

/// Instances of the registered ops in generic form, built from the contract.
class OpInstanceTest : public ::testing::Test {
protected:
  OpInstanceTest() {
    context.loadDialect<IndexPoolDialect, func::FuncDialect>();
    handler = std::make_unique<ScopedDiagnosticHandler>(
        &context, [this](Diagnostic &diag) {
          messages.push_back(diag.str());
          return success();
        });
  }

  /// `tensor<4x8xT>` for the first type of `set`.
  static std::string typeOf(const ElementSet &set) {
    for (int i = 0; i < kNumElements; ++i)
      if (set.contains(Element(i)))
        return std::string("tensor<4x8x") + elementName(Element(i)) + ">";
    return "none";
  }

  /// `op` with the operands whose `counts` are given (0, 1 or 2 values each,
  /// in contract order) and only its required properties but `omit`,
  /// unverified; the function's arguments are the operands in order. Null
  /// when it does not parse.
  Operation *instance(const OpContract &op, ArrayRef<int> counts,
                      StringRef omit = "") {
    std::string args, operands, operandTypes, resultTypes;
    std::vector<std::string> props;
    int n = 0;
    for (auto [operand, count] : llvm::zip_equal(op.operands, counts))
      for (int i = 0; i < count; ++i, ++n) {
        std::string sep = n ? ", " : "";
        args += sep + "%a" + std::to_string(n) + ": " + typeOf(operand.types);
        operands += sep + "%a" + std::to_string(n);
        operandTypes += sep + typeOf(operand.types);
      }
    for (const ResultContract &r : op.results)
      resultTypes += (resultTypes.empty() ? "" : ", ") + typeOf(r.types);
    for (const PropertyContract &p : op.properties)
      if (p.required && omit != p.name)
        props.push_back(
            std::string(p.name) + " = " +
            (p.kind == PropertyKind::I64 ? "4 : i64" : "1.0 : f32"));
    if (isAttrSized(op)) {
      std::string sizes;
      for (int count : counts)
        sizes += (sizes.empty() ? "" : ", ") + std::to_string(count);
      props.push_back("operandSegmentSizes = array<i32: " + sizes + ">");
    }
    std::string text =
        "func.func @f(" + args + ") {\n  \"indexpool." + op.name + "\"(" +
        operands + ") " +
        (props.empty() ? "" : "<{" + llvm::join(props, ", ") + "}> ") + ": (" +
        operandTypes + ") -> (" + resultTypes + ")\n  return\n}\n";
    ParserConfig config(&context, /*verifyAfterParse=*/false);
    module = parseSourceString<ModuleOp>(text, config);
    if (!module)
      return nullptr;
    auto func = cast<func::FuncOp>(module->getBody()->front());
    return &func.getBody().front().front();
  }

  bool isAttrSized(const OpContract &op) {
    std::optional<RegisteredOperationName> name =
        RegisteredOperationName::lookup(std::string("indexpool.") + op.name,
                                        &context);
    return name && name->hasTrait<OpTrait::AttrSizedOperandSegments>();
  }

  /// The first diagnostic of verifying `op`, "" when it verifies.
  std::string firstError(Operation *op) {
    messages.clear();
    (void)verify(op);
    return messages.empty() ? "" : messages.front();
  }

  MLIRContext context;
  std::unique_ptr<ScopedDiagnosticHandler> handler;
  std::vector<std::string> messages;
  OwningOpRef<ModuleOp> module;
};

TEST_F(OpInstanceTest, PropertiesAreTheODSAttributes) {
  for (const OpContract &op : opContracts()) {
    SCOPED_TRACE(op.name);
    std::vector<int> all(op.operands.size(), 1);
    Operation *o = instance(op, all);
    ASSERT_TRUE(o) << (messages.empty() ? "" : messages.back());
    llvm::StringSet<> names;
    for (StringAttr name : o->getName().getAttributeNames())
      if (name != "operandSegmentSizes")
        names.insert(name);
    EXPECT_EQ(names.size(), op.properties.size());
    for (const PropertyContract &p : op.properties) {
      EXPECT_TRUE(names.contains(p.name)) << p.name;
      // Required ones were given; ODS fills in the defaults of the others,
      // except unit attributes, absent when false.
      std::optional<Attribute> attr = o->getInherentAttr(p.name);
      ASSERT_TRUE(attr.has_value()) << p.name;
      if (p.kind == PropertyKind::Unit || p.kind == PropertyKind::Type)
        EXPECT_FALSE(*attr) << p.name; // absent: false, the default type
      else if (p.kind == PropertyKind::I64)
        EXPECT_TRUE(isa_and_nonnull<IntegerAttr>(*attr)) << p.name;
      else
        EXPECT_TRUE(isa_and_nonnull<FloatAttr>(*attr)) << p.name;
    }
    // Left out, a required property is an ODS error, a defaulted one gets
    // its default (checked above: only the required ones were written).
    for (const PropertyContract &p : op.properties) {
      if (!p.required)
        continue;
      Operation *without = instance(op, all, p.name);
      ASSERT_TRUE(without);
      EXPECT_EQ(firstError(without), std::string("'indexpool.") + op.name +
                                         "' op requires attribute '" + p.name +
                                         "'");
    }
  }
}

TEST_F(OpInstanceTest, OperandsAreTheODSGroupsInOrder) {
  for (const OpContract &op : opContracts()) {
    SCOPED_TRACE(op.name);
    size_t count = op.operands.size();
    // All operands: the ODS groups are the contract's, in its order.
    std::vector<int> all(count, 1);
    Operation *o = instance(op, all);
    ASSERT_TRUE(o);
    SmallVector<Value> values = getContractOperands(o);
    ASSERT_EQ(values.size(), count);
    for (size_t i = 0; i < count; ++i)
      EXPECT_EQ(values[i], o->getOperand(i)) << op.operands[i].name;

    // Only the required ones: each optional group is the empty one.
    std::vector<int> required;
    for (const OperandContract &operand : op.operands)
      required.push_back(operand.optional ? 0 : 1);
    o = instance(op, required);
    ASSERT_TRUE(o);
    values = getContractOperands(o);
    unsigned next = 0;
    for (size_t i = 0; i < count; ++i)
      if (op.operands[i].optional)
        EXPECT_FALSE(values[i]) << op.operands[i].name;
      else
        EXPECT_EQ(values[i], o->getOperand(next++)) << op.operands[i].name;
    EXPECT_FALSE(isCountError(firstError(o)))
        << "ODS requires an operand the contract calls optional";

    if (isAttrSized(op)) {
      // Two values in one group: ODS rejects exactly the optional groups
      // ("requires 0 or 1 element").
      for (size_t i = 0; i < count; ++i) {
        std::vector<int> doubled = all;
        doubled[i] = 2;
        o = instance(op, doubled);
        ASSERT_TRUE(o);
        EXPECT_EQ(firstError(o).find("requires 0 or 1 element") !=
                      std::string::npos,
                  op.operands[i].optional)
            << op.operands[i].name;
      }
      continue;
    }
    // One operand fewer than the required ones, one more than all: ODS
    // counts them.
    std::vector<int> fewer = required;
    if (!fewer.empty() && fewer.back() == 1)
      fewer.back() = 0;
    else
      for (int &c : fewer)
        if (c == 1) {
          c = 0;
          break;
        }
    o = instance(op, fewer);
    ASSERT_TRUE(o);
    EXPECT_TRUE(isCountError(firstError(o)))
        << "ODS has fewer required operands than the contract";
    std::vector<int> more = all;
    more.back() += 1;
    o = instance(op, more);
    ASSERT_TRUE(o);
    EXPECT_TRUE(isCountError(firstError(o)))
        << "ODS has more operands than the contract";
  }
}

} // namespace
