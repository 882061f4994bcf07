#include "core/contract/coerce.h"

#include <cmath>
#include <limits>
#include <map>
#include <string_view>

#include "core/contract/rules.h"

namespace revline::contract {

std::string normaliseKey(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '_' || c == '-' || c == ' ') continue;
    out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return out;
}

std::string normaliseEnum(std::string_view text) {
  while (!text.empty() && isBlank(text.substr(0, 1))) text.remove_prefix(1);
  while (!text.empty() && isBlank(text.substr(text.size() - 1))) text.remove_suffix(1);
  std::string out;
  bool inRun = false;
  for (char c : text) {
    if (c == ' ' || c == '-') {
      if (!inRun) out += '_';
      inRun = true;
      continue;
    }
    inRun = false;
    out += (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
  }
  return out;
}

namespace {

struct Context {
  const std::set<std::string>& duplicateKeys;
  std::vector<Problem>& problems;
  std::vector<std::string>& warnings;
  void add(ErrorKind kind, const std::string& pointer, const std::string& detail) {
    problems.push_back(makeProblem(kind, pointer, detail));
  }
};

// A number written as a string ("46", "0.9"), read with JSON's number grammar:
// the spelling changes, the value does not.
std::optional<json> numberInString(const std::string& s) {
  std::string_view t = s;
  while (!t.empty() && isBlank(t.substr(0, 1))) t.remove_prefix(1);
  while (!t.empty() && isBlank(t.substr(t.size() - 1))) t.remove_suffix(1);
  std::size_t k = 0;
  auto digits = [&] {
    const std::size_t start = k;
    while (k < t.size() && t[k] >= '0' && t[k] <= '9') ++k;
    return k > start;
  };
  if (k < t.size() && t[k] == '-') ++k;
  if (!digits()) return std::nullopt;
  if (k < t.size() && t[k] == '.') {
    ++k;
    if (!digits()) return std::nullopt;
  }
  if (k < t.size() && (t[k] == 'e' || t[k] == 'E')) {
    ++k;
    if (k < t.size() && (t[k] == '+' || t[k] == '-')) ++k;
    if (!digits()) return std::nullopt;
  }
  if (k != t.size()) return std::nullopt;
  try {
    return json::parse(std::string(t));
  } catch (const json::exception&) {
    return std::nullopt;  // out of double range
  }
}

class Coercer {
 public:
  Coercer(const json& object, std::string pointer, Context& ctx) : object_(object), pointer_(std::move(pointer)), ctx_(ctx) {
    for (auto it = object.begin(); it != object.end(); ++it) keysByName_[normaliseKey(it.key())].push_back(it.key());
  }

  template <class T>
  void field(std::string_view name, T& target, const FieldSpec& spec) {
    const std::string norm = normaliseKey(name);
    used_.insert(norm);
    const auto found = keysByName_.find(norm);
    if (found == keysByName_.end()) {
      coerce(childPointer(pointer_, name), nullptr, target, spec);
      return;
    }
    const auto& keys = found->second;
    const std::string pointer = childPointer(pointer_, keys.front());
    if (keys.size() > 1) {
      std::string list;
      for (const auto& k : keys) list += (list.empty() ? "" : " and ") + showString(k);
      ctx_.add(ErrorKind::Ambiguous, childPointer(pointer_, name),
               "keys " + list + (keys.size() == 2 ? " both" : " all") + " name the field \"" + std::string(name) +
                   "\"; send it once");
      return;
    }
    if (ctx_.duplicateKeys.count(pointer)) {
      ctx_.add(ErrorKind::Ambiguous, pointer,
               "the key " + showString(keys.front()) + " appears more than once in this object; send it once");
      return;
    }
    coerce(pointer, &object_[keys.front()], target, spec);
  }

  // Keys that name no field are ignored, with a warning.
  void finish() {
    for (const auto& [norm, keys] : keysByName_)
      if (!used_.count(norm))
        for (const auto& k : keys)
          ctx_.warnings.push_back("unknown_key: ignored " + childPointer(pointer_, k) + " (not a field of the contract)");
  }

 private:
  static bool absent(const json* v) { return v == nullptr || v->is_null(); }

  void missing(const std::string& p, const json* v, const std::string& expected) {
    ctx_.add(ErrorKind::MissingField, p, (v ? "null is not allowed, expected " : "is missing, expected ") + expected);
  }

  void coerce(const std::string& p, const json* v, std::string& target, const FieldSpec& spec) {
    if (absent(v)) return missing(p, v, "a string");
    if (!v->is_string()) return ctx_.add(ErrorKind::Type, p, showValue(*v) + " is not a string");
    target = v->get<std::string>();
    checkString(target, spec, p, ctx_.problems);
  }

  void coerce(const std::string& p, const json* v, std::optional<std::string>& target, const FieldSpec& spec) {
    if (absent(v)) return;
    if (!v->is_string()) return ctx_.add(ErrorKind::Type, p, showValue(*v) + " is not a string or null");
    std::string s = v->get<std::string>();
    if (spec.blankIsNull && isBlank(s)) return;
    target = std::move(s);
    checkString(*target, spec, p, ctx_.problems);
  }

  // An integer as the model may spell it: 46, 46.0, "46". Never rounded or clamped.
  std::optional<std::int64_t> integer(const std::string& p, const json& v, const FieldSpec& spec) {
    const std::string noun = spec.integerNoun.empty() ? std::string("an integer") : std::string(spec.integerNoun);
    if (v.is_string()) {
      if (auto number = numberInString(v.get<std::string>())) {
        if (auto i = integer(p, *number, spec)) return i;
        return std::nullopt;
      }
      ctx_.add(ErrorKind::Type, p, showValue(v) + " is not " + noun + " (one integer)");
      return std::nullopt;
    }
    const std::string tooBig = showValue(v) + " is out of range, expected " + noun +
                               (spec.maxInt ? " <= " + std::to_string(*spec.maxInt) : std::string());
    if (v.is_number_unsigned()) {
      if (v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        ctx_.add(ErrorKind::OutOfRange, p, tooBig);
        return std::nullopt;
      }
      return static_cast<std::int64_t>(v.get<std::uint64_t>());
    }
    if (v.is_number_integer()) return v.get<std::int64_t>();
    if (v.is_number_float()) {
      const double d = v.get<double>();
      if (std::trunc(d) != d) {
        ctx_.add(ErrorKind::Type, p, showValue(v) + " is not " + noun + " (not a whole number)");
        return std::nullopt;
      }
      if (std::fabs(d) > 9.0e15) {  // beyond exact doubles, and far beyond any line
        ctx_.add(ErrorKind::OutOfRange, p, tooBig);
        return std::nullopt;
      }
      return static_cast<std::int64_t>(d);
    }
    ctx_.add(ErrorKind::Type, p, showValue(v) + " is not " + noun);
    return std::nullopt;
  }

  void coerce(const std::string& p, const json* v, std::int64_t& target, const FieldSpec& spec) {
    if (absent(v)) return missing(p, v, spec.integerNoun.empty() ? "an integer" : std::string(spec.integerNoun));
    if (auto i = integer(p, *v, spec)) {
      target = *i;
      checkInteger(target, spec, false, p, ctx_.problems);
    }
  }

  void coerce(const std::string& p, const json* v, std::optional<std::int64_t>& target, const FieldSpec& spec) {
    if (absent(v)) return;
    if (auto i = integer(p, *v, spec)) {
      target = *i;
      checkInteger(*target, spec, true, p, ctx_.problems);
    }
  }

  // A number: 0.9, "0.9", "90%" (a percentage, divided by 100).
  void coerce(const std::string& p, const json* v, double& target, const FieldSpec& spec) {
    if (absent(v)) return missing(p, v, "a number");
    std::optional<double> value;
    if (v->is_number()) {
      value = v->get<double>();
    } else if (v->is_string()) {
      std::string s = v->get<std::string>();
      while (!s.empty() && isBlank(s.substr(s.size() - 1))) s.pop_back();
      const bool percent = !s.empty() && s.back() == '%';
      if (percent) s.pop_back();
      if (auto number = numberInString(s)) value = percent ? number->get<double>() / 100.0 : number->get<double>();
    }
    if (!value) return ctx_.add(ErrorKind::Type, p, showValue(*v) + " is not a number");
    target = *value;
    checkNumber(target, spec, p, ctx_.problems);
  }

  template <ContractEnum E>
  void coerce(const std::string& p, const json* v, E& target, const FieldSpec&) {
    const std::string allowed = allowedNames<E>();
    if (absent(v)) return missing(p, v, "one of " + allowed);
    if (!v->is_string()) return ctx_.add(ErrorKind::Type, p, showValue(*v) + " is not a string, expected one of " + allowed);
    if (auto e = parseEnum<E>(normaliseEnum(v->get<std::string>()))) {
      target = *e;
      return;
    }
    ctx_.add(ErrorKind::InvalidEnum, p, showValue(*v) + " is not one of " + allowed);
  }

  template <ContractObject T>
  void object(const std::string& p, const json& v, T& target) {
    Coercer sub(v, p, ctx_);
    T::fields(target, sub);
    sub.finish();
  }

  template <ContractObject T>
  void coerce(const std::string& p, const json* v, T& target, const FieldSpec&) {
    if (absent(v)) return missing(p, v, "an object");
    if (!v->is_object()) return ctx_.add(ErrorKind::Type, p, showValue(*v) + " is not an object");
    object(p, *v, target);
  }

  template <ContractObject T>
  void coerce(const std::string& p, const json* v, std::optional<T>& target, const FieldSpec&) {
    if (absent(v)) return;
    if (!v->is_object()) return ctx_.add(ErrorKind::Type, p, showValue(*v) + " is not an object or null");
    object(p, *v, target.emplace());
  }

  template <ContractObject T>
  void coerce(const std::string& p, const json* v, std::vector<T>& target, const FieldSpec&) {
    // null is not "no findings": an empty list must be said.
    if (absent(v)) return missing(p, v, "an array (send [] when there is nothing)");
    if (!v->is_array()) return ctx_.add(ErrorKind::Shape, p, showValue(*v) + " is not an array");
    target.resize(v->size());
    for (std::size_t i = 0; i < v->size(); ++i) {
      const json& item = (*v)[i];
      const std::string ip = childPointer(p, i);
      if (!item.is_object()) {
        ctx_.add(ErrorKind::Shape, ip, showValue(item) + " is not an object");
        continue;
      }
      object(ip, item, target[i]);
    }
  }

  const json& object_;
  std::string pointer_;
  Context& ctx_;
  std::map<std::string, std::vector<std::string>> keysByName_;
  std::set<std::string> used_;
};

}  // namespace

Coerced coerceReport(const json& root, const std::set<std::string>& duplicateKeys) {
  Coerced out;
  Context ctx{duplicateKeys, out.problems, out.warnings};
  if (!root.is_object()) {
    // Never unwrapped: a wrapped report is a different shape, and the model is told so.
    const std::string what = root.is_array() ? "an array" : "not an object";
    ctx.add(ErrorKind::Shape, "",
            "the reply's JSON value " + showValue(root) + " is " + what +
                "; expected the report object {\"summary\", \"findings\", \"verdict\"} itself, not wrapped");
    return out;
  }
  Coercer c(root, "", ctx);
  ReviewReport::fields(out.report, c);
  c.finish();
  return out;
}

}  // namespace revline::contract
