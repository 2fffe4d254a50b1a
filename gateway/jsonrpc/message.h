// JSON-RPC 2.0 message layer: classifies one incoming payload and builds outgoing envelopes.
// Ids are carried as their exact JSON source text, so "7", "\"a\"" and
// 123456789012345678901234567890 all come back byte for byte. Nothing here throws.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace labgate::gateway::jsonrpc {

// Arrays and objects may nest this deep; deeper input is refused before it is parsed.
inline constexpr size_t kMaxNestingDepth = 128;

struct IncomingMessage {
  enum class Kind { kRequest, kNotification, kResponse, kInvalid };
  Kind kind = Kind::kInvalid;
  // The parsed value (empty for a parse error), kept for kInvalid too: another dialect may
  // claim an object that is not JSON-RPC.
  nlohmann::json body;
  // Exact JSON text of "id" as received, e.g. "7", "\"a\"", "123456789012345678901234567890";
  // "null" when absent or not a valid id.
  std::string raw_id = "null";
  std::string method;  // for requests/notifications (also set for kInvalid when it is a string)
  // For kInvalid: -32700 parse error, -32600 invalid request, -32602 params not an
  // object/array.
  int error_code = 0;
  std::string error_message;
};

IncomingMessage ParseMessage(std::string_view payload);  // never throws

// The envelopes below splice raw_id in verbatim (an empty raw_id means null) and dump JSON
// with invalid UTF-8 replaced, so building a reply can never throw on bad strings.
std::string MakeResult(std::string_view raw_id, const nlohmann::json& result);
// "data" is omitted when null.
std::string MakeError(std::string_view raw_id, int code, std::string_view message,
                      const nlohmann::json& data = nullptr);
// "params" is omitted when null.
std::string MakeNotification(std::string_view method, const nlohmann::json& params);
// "params" is omitted when null.
std::string MakeRequest(std::string_view raw_id, std::string_view method,
                        const nlohmann::json& params);

// Compact UTF-8 serialization that replaces invalid UTF-8 instead of throwing.
std::string DumpJson(const nlohmann::json& value);

}  // namespace labgate::gateway::jsonrpc
