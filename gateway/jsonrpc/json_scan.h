// Small scanners over raw JSON text, for what nlohmann cannot give us: a nesting check that
// runs before parsing (so hostile input cannot exhaust the stack or memory of the parser), and
// the exact source text of a top-level member (so ids are echoed byte for byte; nlohmann turns
// 123456789012345678901234567890 into a double).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace labgate::gateway::jsonrpc {

// True when arrays/objects in `text` nest deeper than `max_depth`. Brackets inside strings do
// not count. Linear time, constant space; does not validate the text.
bool NestingExceeds(std::string_view text, size_t max_depth);

// The source text of the value of member `key` of the top-level object in `text`, e.g. "7",
// "\"a\\\"b\"" or "{\"x\":1}". Members of nested values are never matched; escaped keys
// ("\u0069d") match their decoded form; with duplicate keys the last wins, as in nlohmann.
// Returns nullopt when absent or when `text` is not a well-formed object.
std::optional<std::string_view> TopLevelMemberText(std::string_view text, std::string_view key);

}  // namespace labgate::gateway::jsonrpc
