// A finding as revline publishes it: grounded, filtered, with its stable id.
// Its own header so policy (which decides over these) and the pipeline (which
// makes them) include it without including each other.
#pragma once
#include <optional>
#include <string>

#include "core/contract/contract.h"

namespace revline::review {

// A finding that survived grounding and the publication filters.
struct PublishedFinding {
  contract::Finding finding;                    // edit already removed when it did not match
  std::string id;                               // stable fingerprint (see finding_id.h)
  std::optional<std::string> editDroppedReason; // why the model's edit was not kept
  std::optional<std::string> rangeClamped;      // endLine ran past the shown lines: what was cut
};

}  // namespace revline::review
