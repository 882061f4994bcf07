// A small, strict command-line parser: every option is declared, an unknown
// one is an error that names it. `--name value` and `--name=value` both work.
#pragma once
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace revline::cli {

struct OptionSpec {
  std::string name;      // without the leading "--"
  bool takesValue = false;
};

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class ParsedArgs {
 public:
  ParsedArgs(const std::string& command, const std::vector<OptionSpec>& specs, const std::vector<std::string>& args);
  bool has(const std::string& name) const { return flags_.count(name) || values_.count(name); }
  std::optional<std::string> value(const std::string& name) const;
  // The value parsed as an integer in [min, max]; UsageError names the option otherwise.
  std::optional<int> intValue(const std::string& name, int min, int max) const;
  // A value that is one of a few words (--format SARIF): lowercased, as --fail-on's is read.
  std::optional<std::string> wordValue(const std::string& name) const;
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  std::string command_;
  std::set<std::string> flags_;
  std::map<std::string, std::string> values_;
  std::vector<std::string> positional_;
};

}  // namespace revline::cli
