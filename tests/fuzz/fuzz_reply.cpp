// Fuzzes the reply parser (find the report in a model's text, repair, coerce,
// validate): parseReply never throws, a failure always says why, and a report
// it accepts serialises to JSON that it accepts again (round trip).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/contract/coerce.h"
#include "core/contract/reply_parser.h"
#include "core/contract/serialize.h"
#include "core/contract/validate.h"

using namespace revline;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view raw(reinterpret_cast<const char*>(data), size);
  const contract::ReplyParse first = contract::parseReply(raw);
  if (!first.ok()) {
    if (first.problems.empty()) std::abort();  // a rejection always carries a reason
  } else {
    if (!contract::validate(*first.report).empty()) std::abort();
    const std::string again = contract::toJson(*first.report).dump(-1, ' ', false, json::error_handler_t::replace);
    const contract::ReplyParse second = contract::parseReply(again);
    if (!second.ok()) std::abort();  // what was accepted is accepted again
    if (contract::toJson(*second.report) != contract::toJson(*first.report)) std::abort();
  }

  // Coercion directly on whatever JSON the bytes are (no repairs).
  const json value = json::parse(raw.begin(), raw.end(), nullptr, /*allow_exceptions=*/false);
  if (!value.is_discarded()) {
    const contract::Coerced coerced = contract::coerceReport(value);
    if (coerced.problems.empty() && !contract::validate(coerced.report).empty()) std::abort();
  }
  (void)contract::normaliseKey(raw.substr(0, 64));
  (void)contract::normaliseEnum(raw.substr(0, 64));
  return 0;
}
