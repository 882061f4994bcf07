#include "core/cli/args.h"

#include <cctype>

namespace revline::cli {

ParsedArgs::ParsedArgs(const std::string& command, const std::vector<OptionSpec>& specs,
                       const std::vector<std::string>& args)
    : command_(command) {
  auto find = [&](const std::string& name) -> const OptionSpec* {
    for (const auto& s : specs)
      if (s.name == name) return &s;
    return nullptr;
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      positional_.insert(positional_.end(), args.begin() + static_cast<long>(i) + 1, args.end());
      break;
    }
    if (a == "-h" && find("help")) {  // the short form every command's help names
      flags_.insert("help");
      continue;
    }
    if (a.rfind("--", 0) != 0 || a.size() == 2) {
      positional_.push_back(a);
      continue;
    }
    std::string name = a.substr(2), inlineValue;
    bool hasInline = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      inlineValue = name.substr(eq + 1);
      name = name.substr(0, eq);
      hasInline = true;
    }
    const OptionSpec* spec = find(name);
    if (!spec) throw UsageError("unknown option --" + name + " for `" + command_ + "` (see `" + command_ + " --help`)");
    if (!spec->takesValue) {
      if (hasInline) throw UsageError("option --" + name + " takes no value");
      flags_.insert(name);
      continue;
    }
    if (hasInline) {
      values_[name] = inlineValue;
    } else {
      if (i + 1 >= args.size()) throw UsageError("option --" + name + " needs a value (see `" + command_ + " --help`)");
      values_[name] = args[++i];
    }
  }
}

std::optional<std::string> ParsedArgs::value(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> ParsedArgs::wordValue(const std::string& name) const {
  auto v = value(name);
  if (v)
    for (char& c : *v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return v;
}

std::optional<int> ParsedArgs::intValue(const std::string& name, int min, int max) const {
  auto v = value(name);
  if (!v) return std::nullopt;
  std::size_t used = 0;
  long n = 0;
  try {
    n = std::stol(*v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != v->size() || v->empty() || n < min || n > max) {
    throw UsageError("option --" + name + " expects a whole number from " + std::to_string(min) + " to " +
                     std::to_string(max) + ", got \"" + *v + "\"");
  }
  return static_cast<int>(n);
}

}  // namespace revline::cli
