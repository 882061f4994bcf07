// Suppression comments, in revline's own form and in the forms of the linters
// a repository already uses, so a line someone already marked as deliberate
// is not reported again. What counts is listed in docs/BUILTIN-RULES.md.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/builtin/rule_catalog.h"
#include "core/builtin/scan.h"

namespace revline::builtin {

// The comment part of a line (outside string literals), from its first comment
// to the end of the line, or "" when none.
std::string commentOf(std::string_view line, const Tokens& tokens, Language lang);

// Whether byte `offset` of the line is inside one of its comments: not the code
// after a block comment closed on the line ("/* db */ password = ...").
bool insideComment(std::string_view line, const Tokens& tokens, Language lang, std::size_t offset);

// The same for many offsets of one line: its comments are found once, on the first
// question (found again for each of a long line's secrets, it was quadratic).
class LineComments {
 public:
  LineComments(std::string_view line, const Tokens& tokens, Language lang) : line_(line), tokens_(tokens), lang_(lang) {}
  bool contains(std::size_t offset);

 private:
  std::string_view line_;
  const Tokens& tokens_;
  Language lang_;
  std::optional<std::vector<std::pair<std::size_t, std::size_t>>> spans_;  // [begin, end)
};

// True when the finding is suppressed by a comment on one of its lines or on
// the line just above it.
bool isSuppressed(const ScanFile& file, const RuleFinding& found);

}  // namespace revline::builtin
