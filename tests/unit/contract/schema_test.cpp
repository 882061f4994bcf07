// The wire schema: strict-mode rules on every object, no range keywords, the
// descriptions of contract.md, and the proof that every visitor sees the same
// field list (so adding a field to fields() reaches all of them).
#include "core/contract/schema.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "core/contract/contract.h"
#include "core/contract/default_policy.h"
#include "core/contract/rules.h"
#include "core/contract/validate.h"
#include "core/contract/reply_parser.h"
#include "core/contract/serialize.h"

namespace revline::contract {
namespace {

using ojson = nlohmann::ordered_json;

bool isObjectNode(const ojson& node) {
  if (!node.contains("type")) return false;
  const ojson& t = node["type"];
  if (t.is_string()) return t == "object";
  for (const auto& x : t)
    if (x == "object") return true;
  return false;
}

void walk(const ojson& node, const std::string& path, const std::function<void(const ojson&, const std::string&)>& f) {
  f(node, path);
  if (node.is_object())
    for (auto it = node.begin(); it != node.end(); ++it) walk(it.value(), path + "/" + it.key(), f);
  else if (node.is_array())
    for (std::size_t i = 0; i < node.size(); ++i) walk(node[i], path + "/" + std::to_string(i), f);
}

const ojson& findingSchema() {
  static const ojson schema = reportSchemaOrdered();
  return schema["properties"]["findings"]["items"];
}

// The object branch of the nullable `edit`.
const ojson& editObject() { return findingSchema()["properties"]["edit"]["anyOf"][0]; }

TEST(Schema, EveryObjectIsStrict) {
  int objects = 0;
  walk(reportSchemaOrdered(), "", [&](const ojson& node, const std::string& path) {
    if (!isObjectNode(node)) return;
    ++objects;
    SCOPED_TRACE(path);
    EXPECT_EQ(node["additionalProperties"], false);
    ASSERT_TRUE(node.contains("properties"));
    std::vector<std::string> props, required;
    for (auto it = node["properties"].begin(); it != node["properties"].end(); ++it) props.push_back(it.key());
    for (const auto& r : node["required"]) required.push_back(r.get<std::string>());
    EXPECT_EQ(props, required);  // every property required, in the same order
  });
  EXPECT_EQ(objects, 3);  // report, finding, edit
}

TEST(Schema, NoRangeKeywords) {
  walk(reportSchemaOrdered(), "", [](const ojson& node, const std::string& path) {
    if (!node.is_object()) return;
    for (const char* kw : {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "maxLength", "minLength"})
      EXPECT_FALSE(node.contains(kw)) << kw << " at " << path;
  });
}

TEST(Schema, DescriptionsComeFromTheContract) {
  const ojson schema = reportSchemaOrdered();
  for (auto it = schema["properties"].begin(); it != schema["properties"].end(); ++it)
    EXPECT_TRUE(it.value().contains("description")) << it.key();
  for (auto it = findingSchema()["properties"].begin(); it != findingSchema()["properties"].end(); ++it)
    EXPECT_TRUE(it.value().contains("description")) << it.key();
  for (const auto* key : {"original", "replacement"})
    EXPECT_TRUE(editObject()["properties"][key].contains("description")) << key;
  EXPECT_EQ(editObject()["properties"]["original"]["description"],
            "The exact current text of lines line..endLine (or line alone), lines joined with \"\\n\", without the "
            "`<number> <marker> ` prefix but with the line's own indentation. Rules: not empty.");
  EXPECT_EQ(schema["properties"]["findings"]["description"],
            "Every real problem in the changed lines. An empty list if the diff is fine: do not invent findings.");
}

// Collects every field's spec and schema description, walking the contract the way the validator does.
struct SpecCollector {
  std::string prefix;
  std::vector<std::pair<std::string, FieldSpec>>& out;
  template <class T>
  void field(std::string_view name, const T&, const FieldSpec& spec) {
    out.emplace_back(prefix + std::string(name), spec);
  }
  template <ContractObject T>
  void nested(std::string_view name, const FieldSpec& spec) {
    out.emplace_back(prefix + std::string(name), spec);
    SpecCollector sub{prefix + std::string(name) + ".", out};
    const T sample{};
    T::fields(sample, sub);
  }
  template <ContractObject T>
  void field(std::string_view name, const std::vector<T>&, const FieldSpec& spec) { nested<T>(name, spec); }
  template <ContractObject T>
  void field(std::string_view name, const std::optional<T>&, const FieldSpec& spec) { nested<T>(name, spec); }
};

const ojson& schemaNode(const std::string& dotted) {
  if (dotted.rfind("findings.edit.", 0) == 0) return editObject()["properties"][dotted.substr(14)];
  if (dotted.rfind("findings.", 0) == 0) return findingSchema()["properties"][dotted.substr(9)];
  static const ojson schema = reportSchemaOrdered();
  return schema["properties"][dotted];
}

TEST(Schema, StatesEveryRuleTheValidatorEnforces) {
  std::vector<std::pair<std::string, FieldSpec>> specs;
  SpecCollector collect{"", specs};
  const ReviewReport sample{};
  ReviewReport::fields(sample, collect);
  int stated = 0;
  for (const auto& [name, spec] : specs) {
    SCOPED_TRACE(name);
    const std::string rules = statedRules(spec);
    const std::string description = schemaNode(name).value("description", "");
    if (!rules.empty()) {
      EXPECT_NE(description.find(rules), std::string::npos) << description;
      ++stated;
    }
    // The numbers in the statement are the ones the checks use.
    if (spec.maxChars) {
      EXPECT_NE(rules.find("at most " + std::to_string(spec.maxChars) + " characters"), std::string::npos);
    }
    if (spec.minInt) {
      EXPECT_NE(rules.find("from " + std::to_string(*spec.minInt) + " to " + std::to_string(*spec.maxInt)), std::string::npos);
    }
    if (spec.notBeforeValue) {
      EXPECT_NE(rules.find("at least " + std::string(spec.notBeforeName)), std::string::npos);
    }
    if (spec.minNumber) {
      EXPECT_NE(rules.find("from " + json(*spec.minNumber).dump() + " to " + json(*spec.maxNumber).dump()), std::string::npos);
    }
  }
  EXPECT_GE(stated, 9);

  // And the validator holds exactly those limits: the boundary passes, one past it fails.
  Finding f;
  f.file = "a";
  f.line = 1;
  f.title = std::string(120, 't');
  f.explanation = "x";
  f.confidence = 1.0;
  ReviewReport r{"s", {f}, Verdict::Comment};
  EXPECT_TRUE(validate(r).empty());
  r.findings[0].title += "t";
  r.findings[0].confidence = 1.01;
  r.findings[0].line = 0;
  EXPECT_EQ(validate(r).size(), 3u);
  r.findings[0] = f;
  r.findings[0].line = 5;
  r.findings[0].endLine = 4;
  ASSERT_EQ(validate(r).size(), 1u);
  EXPECT_NE(validate(r)[0].message.find(">= line (5)"), std::string::npos) << validate(r)[0].message;
}

TEST(Schema, EveryCategoryAndSeverityIsDescribedWithWhetherItBlocks) {
  const std::string category = findingSchema()["properties"]["category"]["description"];
  for (const auto& [value, name] : EnumTable<Category>::names) {
    const std::string line = std::string(name) + ": " + std::string(describe(value)) +
                             (blocksByDefault(value) ? " (blocks)." : ".");
    EXPECT_NE(category.find(line), std::string::npos) << line << "\n" << category;
  }
  EXPECT_NE(category.find("MAJOR or worse and its confidence at least 0.6"), std::string::npos) << category;
  const std::string severity = findingSchema()["properties"]["severity"]["description"];
  for (const auto& [value, name] : EnumTable<Severity>::names) {
    const std::string line = std::string(name) + ": " + std::string(describe(value)) +
                             (blocksByDefault(value) ? " (blocks)." : ".");
    EXPECT_NE(severity.find(line), std::string::npos) << line << "\n" << severity;
  }
  // The default policy the schema states is the one policy code applies.
  EXPECT_TRUE(blocksByDefault(Category::Correctness));
  EXPECT_FALSE(blocksByDefault(Category::Style));
  EXPECT_TRUE(blocksByDefault(Severity::Major));
  EXPECT_FALSE(blocksByDefault(Severity::Minor));
}

TEST(Schema, TypesNullablesAndEnums) {
  const ojson& p = findingSchema()["properties"];
  EXPECT_EQ(p["file"]["type"], "string");
  EXPECT_EQ(p["line"]["type"], "integer");
  EXPECT_EQ(p["endLine"]["type"], ojson::array({"integer", "null"}));
  EXPECT_EQ(p["suggestedFix"]["type"], ojson::array({"string", "null"}));
  // The nullable object: anyOf an object and null, the description outside.
  ASSERT_EQ(p["edit"]["anyOf"].size(), 2u);
  EXPECT_EQ(p["edit"]["anyOf"][0]["type"], "object");
  EXPECT_EQ(p["edit"]["anyOf"][1], ojson({{"type", "null"}}));
  EXPECT_TRUE(p["edit"].contains("description"));
  EXPECT_FALSE(p["edit"].contains("type"));
  EXPECT_EQ(p["confidence"]["type"], "number");
  EXPECT_EQ(p["severity"]["enum"], ojson::array({"BLOCKER", "MAJOR", "MINOR", "NIT"}));
  EXPECT_EQ(p["category"]["enum"], ojson::array({"CORRECTNESS", "SECURITY", "CONCURRENCY", "DATA_LOSS", "PERFORMANCE",
                                                 "MAINTAINABILITY", "STYLE", "TESTING"}));
  EXPECT_EQ(reportSchemaOrdered()["properties"]["verdict"]["enum"],
            ojson::array({"APPROVE", "COMMENT", "REQUEST_CHANGES"}));
  EXPECT_EQ(reportSchemaOrdered()["properties"]["findings"]["type"], "array");
}

TEST(Schema, PropertiesInContractOrder) {
  std::vector<std::string> keys;
  for (auto it = findingSchema()["properties"].begin(); it != findingSchema()["properties"].end(); ++it)
    keys.push_back(it.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"file", "line", "endLine", "severity", "category", "title", "explanation",
                                            "suggestedFix", "edit", "confidence"}));
  EXPECT_EQ(reportSchemaText().find("\"summary\""), reportSchemaText().find("\"properties\":{") + 14);
}

TEST(Schema, SortedVariantIsTheSameSchema) {
  EXPECT_EQ(reportSchema(), json::parse(reportSchemaText()));
}

// The one-place proof. The names a plain visitor collects from fields() are
// exactly the names in the schema, in toJson's output and in what coercion
// reads; since each of those is a generic visitor over fields(), a field added
// there (one member, one v.field line) appears in all of them with no other edit.
struct NameCollector {
  std::vector<std::string> names;
  template <class T>
  void field(std::string_view name, const T&, const FieldSpec&) {
    names.emplace_back(name);
  }
};

template <class T>
std::vector<std::string> fieldNames() {
  NameCollector c;
  const T sample{};
  T::fields(sample, c);
  return c.names;
}

std::vector<std::string> keysOf(const ojson& object) {
  std::vector<std::string> out;
  for (auto it = object.begin(); it != object.end(); ++it) out.push_back(it.key());
  return out;
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST(Schema, OneFieldListDrivesEverything) {
  EXPECT_EQ(keysOf(reportSchemaOrdered()["properties"]), fieldNames<ReviewReport>());
  EXPECT_EQ(keysOf(findingSchema()["properties"]), fieldNames<Finding>());
  EXPECT_EQ(keysOf(editObject()["properties"]), fieldNames<Edit>());

  Finding f;
  f.edit = Edit{"a", "b"};
  std::vector<std::string> jsonKeys;
  const json written = toJson(f);
  for (auto it = written.begin(); it != written.end(); ++it) jsonKeys.push_back(it.key());
  EXPECT_EQ(jsonKeys, sorted(fieldNames<Finding>()));

  // Coercion reads every field: a value of the wrong type in any of them is a
  // problem reported at that field.
  for (const auto& name : fieldNames<Finding>()) {
    json report = {{"summary", "s"}, {"verdict", "COMMENT"},
                   {"findings", json::array({{{"file", "a"}, {"line", 1}, {"severity", "NIT"}, {"category", "STYLE"},
                                              {"title", "t"}, {"explanation", "e"}, {"confidence", 0.5}}})}};
    ASSERT_TRUE(parseReply(report.dump()).ok());
    report["findings"][0][name] = json::array({json::object()});
    const ReplyParse p = parseReply(report.dump());
    ASSERT_FALSE(p.ok()) << name;
    EXPECT_EQ(p.problems[0].pointer, "/findings/0/" + name);
  }
}

}  // namespace
}  // namespace revline::contract
