#include "lsp/pull_diagnostics.h"

#include <cstdint>
#include <cstdio>

#include "core/support/hash.h"

namespace revline::lsp {

std::string diagnosticsResultId(const std::vector<Diagnostic>& items) {
  const std::string wire = json(items).dump(-1, ' ', false, json::error_handler_t::replace);
  char id[24];
  std::snprintf(id, sizeof id, "r%016llx", static_cast<unsigned long long>(fnv1a64(wire)));
  return id;
}

json documentDiagnosticReport(const std::vector<Diagnostic>& items, const std::optional<std::string>& previousResultId) {
  const std::string id = diagnosticsResultId(items);
  if (previousResultId && *previousResultId == id) return json{{"kind", "unchanged"}, {"resultId", id}};
  return json{{"kind", "full"}, {"resultId", id}, {"items", items}};
}

}  // namespace revline::lsp
