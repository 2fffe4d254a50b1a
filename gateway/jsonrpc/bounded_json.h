// Parses untrusted JSON text in one pass of nlohmann's SAX parser, which builds the value,
// stops at the first level deeper than a limit (so hostile input cannot exhaust memory),
// and keeps the source text of the top-level "id" (ids are echoed byte for byte; nlohmann
// turns 123456789012345678901234567890 into a double). bench/README.md ("JSON-RPC front
// end") measured this against scanning the text separately. Plain text (plain_json.h) takes
// a faster parser first, which gives the same.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace labgate::gateway::jsonrpc {

// NOLINTNEXTLINE(bugprone-exception-escape): a json member's destructor may allocate, as any json's
struct BoundedJson {
  enum class Error { kNone, kTooDeep, kSyntax };
  Error error = Error::kNone;
  // nlohmann's exception text for kSyntax, e.g. "[json.exception.parse_error.101] parse
  // error at line 1, column 2: ...".
  std::string error_text;
  nlohmann::json value;  // null unless error is kNone
  // The exact source text of the top-level object's last "id" member when that member is a
  // string or a number ("7", "-0", "1E+2", "\"a\\u0041\""); nullopt otherwise.
  std::optional<std::string> id_text;
};

// `max_depth` counts arrays and objects: "[]" is depth 1, "[[]]" depth 2.
BoundedJson ParseBoundedJson(std::string_view text, size_t max_depth);
// The nlohmann pass alone, for any text (the plain parser's tests and fuzzer compare with it).
BoundedJson ParseBoundedJsonWithSax(std::string_view text, size_t max_depth);

}  // namespace labgate::gateway::jsonrpc
