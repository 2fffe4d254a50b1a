// A scanner over raw JSON text for what nlohmann's parser cannot give: the exact source text
// of a top-level member. ParseBoundedJson needs it only for a string id written with escapes
// (nlohmann reports the decoded string); bench/README.md measured the rest away.
#pragma once

#include <optional>
#include <string_view>

namespace labgate::gateway::jsonrpc {

// The source text of the value of member `key` of the top-level object in `text`, e.g. "7",
// "\"a\\\"b\"" or "{\"x\":1}". Members of nested values are never matched; escaped keys
// ("\u0069d") match their decoded form; with duplicate keys the last wins, as in nlohmann.
// Returns nullopt when absent or when `text` is not a well-formed object.
std::optional<std::string_view> TopLevelMemberText(std::string_view text, std::string_view key);

}  // namespace labgate::gateway::jsonrpc
