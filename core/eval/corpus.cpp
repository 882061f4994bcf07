#include "core/eval/corpus.h"

#include <algorithm>

#include "core/support/files.h"

namespace revline::eval {
namespace {

namespace fs = std::filesystem;

// The one description of case.json: validation and the JSON Schema both walk
// these lists, so they cannot drift apart.
enum class Kind { String, Boolean, Line, Strings, Severity, Category, Source, Issues };

struct Field {
  const char* name;
  Kind kind;
  bool required;
  const char* description;
};

const std::vector<Field>& caseFields() {
  static const std::vector<Field> fields = {
      {"language", Kind::String, true, "Main language of the changed code: java, python, javascript, typescript, go, c, ..."},
      {"description", Kind::String, false, "The intent of the change, as its author would describe it."},
      {"source", Kind::Source, false, "Where the case comes from (required for the bundled corpus)."},
      {"patch", Kind::String, false, "The change, a unified diff applied to base/ with `git apply` (default change.patch)."},
      {"clean", Kind::Boolean, false, "True for a change that should draw no blocking finding (then `expected` is empty)."},
      {"expectBlock", Kind::Boolean, false, "Whether the verdict should be REQUEST_CHANGES (default: not clean)."},
      {"expected", Kind::Issues, false, "The problems a reviewer should report; required and non-empty unless clean."},
      {"mustNotComment", Kind::Strings, false, "Repository paths the reviewer must not comment on."},
  };
  return fields;
}

const std::vector<Field>& sourceFields() {
  static const std::vector<Field> fields = {
      {"repository", Kind::String, true, "The public repository, owner/name."},
      {"commit", Kind::String, true, "The commit the case is built from (the fix that was reversed)."},
      {"licence", Kind::String, true, "The repository's licence (SPDX id)."},
  };
  return fields;
}

const std::vector<Field>& issueFields() {
  static const std::vector<Field> fields = {
      {"file", Kind::String, true, "Repository path of the file in the new version, as in the diff header."},
      {"line", Kind::Line, true, "First new-file line of the problem."},
      {"endLine", Kind::Line, false, "Last new-file line of a multi-line problem (>= line)."},
      {"category", Kind::Category, false, "The contract category a reviewer would give (informational)."},
      {"severity", Kind::Severity, false, "The contract severity a reviewer would give (informational)."},
      {"note", Kind::String, true, "What the bug is and what it does at run time."},
  };
  return fields;
}

const std::vector<std::string>& licences() {
  static const std::vector<std::string> ids = {"MIT", "Apache-2.0", "BSD-2-Clause", "BSD-3-Clause", "ISC", "0BSD"};
  return ids;
}

template <class E>
json enumSchema(const char* description) {
  json values = json::array();
  for (const auto& [v, name] : contract::EnumTable<E>::names) values.push_back(std::string(name));
  return {{"enum", values}, {"description", description}};
}

json schemaFor(const std::vector<Field>& fields);

json fieldSchema(const Field& f) {
  switch (f.kind) {
    case Kind::String: return {{"type", "string"}, {"minLength", 1}, {"description", f.description}};
    case Kind::Boolean: return {{"type", "boolean"}, {"description", f.description}};
    case Kind::Line: return {{"type", "integer"}, {"minimum", 1}, {"description", f.description}};
    case Kind::Strings:
      return {{"type", "array"}, {"items", {{"type", "string"}, {"minLength", 1}}}, {"description", f.description}};
    case Kind::Severity: return enumSchema<contract::Severity>(f.description);
    case Kind::Category: return enumSchema<contract::Category>(f.description);
    case Kind::Source: {
      json s = schemaFor(sourceFields());
      s["description"] = f.description;
      s["properties"]["licence"]["enum"] = licences();
      return s;
    }
    case Kind::Issues:
      return {{"type", "array"}, {"items", schemaFor(issueFields())}, {"description", f.description}};
  }
  return json::object();
}

json schemaFor(const std::vector<Field>& fields) {
  json properties = json::object(), required = json::array();
  for (const Field& f : fields) {
    properties[f.name] = fieldSchema(f);
    if (f.required) required.push_back(f.name);
  }
  return {{"type", "object"}, {"additionalProperties", false}, {"properties", properties}, {"required", required}};
}

// Collects problems instead of stopping at the first: an author fixes them all at once.
class Checker {
 public:
  explicit Checker(std::string origin) : origin_(std::move(origin)) {}

  void problem(const std::string& path, const std::string& what) { problems_.push_back(origin_ + ": " + path + ": " + what); }
  bool ok() const { return problems_.empty(); }
  const std::vector<std::string>& problems() const { return problems_; }

  // Unknown keys, missing required keys and wrong types; true when the object can be read.
  bool shape(const json& obj, const std::vector<Field>& fields, const std::string& path) {
    if (!obj.is_object()) {
      problem(path.empty() ? "(root)" : path, "expected an object, got " + typeName(obj));
      return false;
    }
    bool readable = true;
    for (const auto& item : obj.items()) {
      // Named copies, not structured bindings: clang 14 cannot capture those in a lambda.
      const std::string& key = item.key();
      const json& value = item.value();
      auto it = std::find_if(fields.begin(), fields.end(), [&](const Field& f) { return key == f.name; });
      if (it == fields.end()) {
        problem(join(path, key), "unknown key (expected one of " + names(fields) + ")");
        readable = false;
      } else if (!hasKind(value, it->kind)) {
        problem(join(path, key), "got " + shortDump(value) + ", expected " + expectation(*it));
        readable = false;
      }
    }
    for (const Field& f : fields) {
      if (f.required && !obj.contains(f.name)) {
        problem(join(path, f.name), "missing (" + std::string(f.description) + ")");
        readable = false;
      }
    }
    return readable;
  }

 private:
  static std::string join(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }
  static std::string names(const std::vector<Field>& fields) {
    std::string out;
    for (const Field& f : fields) out += (out.empty() ? "" : ", ") + std::string(f.name);
    return out;
  }
  static std::string typeName(const json& v) { return v.is_null() ? "null" : std::string(v.type_name()); }
  static std::string shortDump(const json& v) {
    std::string s = v.dump();
    return s.size() > 60 ? s.substr(0, 57) + "..." : s;
  }
  template <class E>
  static std::string enumList() {
    std::string out;
    for (const auto& [v, name] : contract::EnumTable<E>::names) out += (out.empty() ? "" : ", ") + std::string(name);
    return out;
  }
 public:
  // True when `obj` has `key` with a value of `kind` (problems were reported by shape()).
  static bool has(const json& obj, const char* key, Kind kind) { return obj.contains(key) && hasKind(obj[key], kind); }

 private:
  static bool hasKind(const json& v, Kind kind) {
    switch (kind) {
      case Kind::String: return v.is_string() && !v.get<std::string>().empty();
      case Kind::Boolean: return v.is_boolean();
      case Kind::Line: return v.is_number_integer() && v.get<std::int64_t>() >= 1;
      case Kind::Strings:
        return v.is_array() && std::all_of(v.begin(), v.end(), [](const json& s) { return s.is_string() && !s.get<std::string>().empty(); });
      case Kind::Severity: return v.is_string() && contract::parseEnum<contract::Severity>(v.get<std::string>());
      case Kind::Category: return v.is_string() && contract::parseEnum<contract::Category>(v.get<std::string>());
      case Kind::Source:
      case Kind::Issues: return kind == Kind::Source ? v.is_object() : v.is_array();
    }
    return false;
  }
  static std::string expectation(const Field& f) {
    switch (f.kind) {
      case Kind::String: return "a non-empty string";
      case Kind::Boolean: return "true or false";
      case Kind::Line: return "a new-file line number >= 1";
      case Kind::Strings: return "an array of non-empty strings";
      case Kind::Severity: return "one of " + enumList<contract::Severity>();
      case Kind::Category: return "one of " + enumList<contract::Category>();
      case Kind::Source: return "an object {repository, commit, licence}";
      case Kind::Issues: return "an array of issues {file, line, endLine?, category?, severity?, note}";
    }
    return "";
  }

  std::string origin_;
  std::vector<std::string> problems_;
};

std::string normalisedPath(std::string p) {
  while (p.rfind("./", 0) == 0) p.erase(0, 2);
  return p;
}

// Reads what is well-typed; shape() has reported the rest.
ExpectedIssue readIssue(const json& j) {
  ExpectedIssue issue;
  if (Checker::has(j, "file", Kind::String)) issue.file = normalisedPath(j["file"].get<std::string>());
  if (Checker::has(j, "line", Kind::Line)) issue.line = j["line"].get<std::int64_t>();
  if (Checker::has(j, "endLine", Kind::Line)) issue.endLine = j["endLine"].get<std::int64_t>();
  if (Checker::has(j, "category", Kind::Category))
    issue.category = contract::parseEnum<contract::Category>(j["category"].get<std::string>());
  if (Checker::has(j, "severity", Kind::Severity))
    issue.severity = contract::parseEnum<contract::Severity>(j["severity"].get<std::string>());
  if (Checker::has(j, "note", Kind::String)) issue.note = j["note"].get<std::string>();
  return issue;
}

}  // namespace

EvalCase parseCase(const json& doc, const fs::path& dir, const std::string& origin) {
  Checker check(origin);
  EvalCase c;
  c.id = dir.filename().string();
  if (c.id.empty() || c.id == ".") c.id = fs::absolute(dir).lexically_normal().parent_path().filename().string();
  c.dir = dir;
  // Every part is checked even when another is broken, so one run lists every problem.
  if (check.shape(doc, caseFields(), "") || doc.is_object()) {
    using K = Kind;
    if (Checker::has(doc, "language", K::String)) c.language = doc["language"].get<std::string>();
    if (Checker::has(doc, "description", K::String)) c.description = doc["description"].get<std::string>();
    if (Checker::has(doc, "clean", K::Boolean)) c.clean = doc["clean"].get<bool>();
    c.expectBlock = Checker::has(doc, "expectBlock", K::Boolean) ? doc["expectBlock"].get<bool>() : !c.clean;
    c.patch = dir / (Checker::has(doc, "patch", K::String) ? doc["patch"].get<std::string>() : std::string("change.patch"));
    if (Checker::has(doc, "mustNotComment", K::Strings))
      for (const auto& p : doc["mustNotComment"]) c.mustNotComment.push_back(normalisedPath(p.get<std::string>()));
    if (Checker::has(doc, "source", K::Source) && check.shape(doc["source"], sourceFields(), "source")) {
      const json& s = doc["source"];
      c.source = CaseSource{s["repository"].get<std::string>(), s["commit"].get<std::string>(), s["licence"].get<std::string>()};
      if (std::find(licences().begin(), licences().end(), c.source->licence) == licences().end()) {
        std::string allowed;
        for (const auto& l : licences()) allowed += (allowed.empty() ? "" : ", ") + l;
        check.problem("source.licence", "\"" + c.source->licence + "\" is not a permissive licence this corpus accepts (" + allowed + ")");
      }
    }
    const json expected = Checker::has(doc, "expected", K::Issues) ? doc["expected"] : json::array();
    for (std::size_t i = 0; i < expected.size(); ++i) {
      const std::string at = "expected[" + std::to_string(i) + "]";
      if (!check.shape(expected[i], issueFields(), at) && !expected[i].is_object()) continue;
      ExpectedIssue issue = readIssue(expected[i]);
      if (issue.endLine && issue.line > 0 && *issue.endLine < issue.line)
        check.problem(at + ".endLine", "got " + std::to_string(*issue.endLine) + ", expected a line >= line (" + std::to_string(issue.line) + ")");
      if (std::find(c.mustNotComment.begin(), c.mustNotComment.end(), issue.file) != c.mustNotComment.end())
        check.problem(at + ".file", "\"" + issue.file + "\" is also listed in mustNotComment");
      c.expected.push_back(std::move(issue));
    }
    if (c.clean && !c.expected.empty())
      check.problem("expected", "a clean case expects no issues: remove them or set \"clean\": false");
    // (an `expected` of the wrong type was reported by shape())
    if (!c.clean && c.expected.empty() && (!doc.contains("expected") || doc["expected"].is_array()))
      check.problem("expected", "missing or empty: list the issues a reviewer should find, or set \"clean\": true");
    if (!fs::is_regular_file(c.patch))
      check.problem(doc.contains("patch") ? "patch" : "(case)", "the change " + c.patch.string() + " does not exist (a unified diff against base/)");
  }
  if (!fs::is_directory(dir / "base"))
    check.problem("(case)", "no base/ directory next to case.json (the repository files before the change)");
  if (!check.ok()) {
    std::string message = "broken case \"" + c.id + "\":";
    for (const auto& p : check.problems()) message += "\n  " + p;
    throw CorpusError(message);
  }
  return c;
}

json readJsonFile(const fs::path& file, const std::string& what) {
  const std::optional<std::string> text = readWholeFile(file);
  if (!text) throw CorpusError(file.string() + ": cannot read the " + what + " (no such file or not readable)");
  try {
    return json::parse(*text);
  } catch (const json::parse_error& e) {
    throw CorpusError(file.string() + ": not valid JSON: " + e.what());
  }
}

EvalCase loadCase(const fs::path& dir) {
  const fs::path file = dir / "case.json";
  return parseCase(readJsonFile(file, "case"), dir, file.string());
}

std::vector<EvalCase> loadCorpus(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw CorpusError(dir.string() + ": not a directory (a corpus is a directory of cases)");
  if (fs::exists(dir / "case.json")) return {loadCase(dir)};
  std::vector<fs::path> dirs;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_directory() && fs::exists(entry.path() / "case.json")) dirs.push_back(entry.path());
  std::sort(dirs.begin(), dirs.end());
  if (dirs.empty())
    throw CorpusError(dir.string() + ": no cases (a case is a subdirectory with case.json, base/ and change.patch; see docs/EVAL.md)");
  std::vector<EvalCase> cases;
  std::string broken;
  for (const auto& d : dirs) {
    try {
      cases.push_back(loadCase(d));
    } catch (const CorpusError& e) {
      broken += std::string(broken.empty() ? "" : "\n") + e.what();
    }
  }
  if (!broken.empty()) throw CorpusError(broken);
  return cases;
}

json caseSchema() {
  json s = {{"$schema", "https://json-schema.org/draft/2020-12/schema"},
            {"title", "revline eval case (case.json)"},
            {"description", "One case of a revline eval corpus: a base/ tree, a patch, and what a reviewer should find."}};
  s.update(schemaFor(caseFields()));
  return s;
}

}  // namespace revline::eval
