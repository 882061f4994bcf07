#include "core/reports/names.h"

#include <cctype>

#include "core/contract/enums.h"
#include "core/contract/serialize.h"

namespace revline::reports {

std::string_view severityName(contract::Severity severity) { return contract::toString(severity); }
std::string_view categoryName(contract::Category category) { return contract::toString(category); }
std::string_view verdictName(contract::Verdict verdict) { return contract::toString(verdict); }

std::optional<contract::Severity> parseSeverityName(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  std::string upper;
  for (char c : text) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return contract::parseSeverity(upper);
}

json findingJson(const contract::Finding& finding) { return contract::toJson(finding); }

}  // namespace revline::reports
