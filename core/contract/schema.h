// The JSON Schema of the report sent to providers for structured output,
// derived from the field lists in contract.h. Strict mode: every object has
// additionalProperties false and lists every property in `required`; nullable
// scalars are type arrays (["integer","null"], ["string","null"]), the nullable
// object `edit` is anyOf [{object}, {"type":"null"}] (see schema.cpp for why);
// enums are string enums; descriptions come from contract.md. No minimum/maximum keywords (Anthropic rejects them): the
// ranges are enforced by validate().
#pragma once
#include <string>

#include "core/support/json.h"

namespace revline::contract {

// Properties in contract order: models emit keys in schema order, so a
// request body should embed this (or reportSchemaText()) rather than json,
// whose objects sort their keys.
nlohmann::ordered_json reportSchemaOrdered();
json reportSchema();             // same schema; keys sorted (nlohmann::json)
std::string reportSchemaText();  // reportSchemaOrdered().dump()

}  // namespace revline::contract
