// JSON-RPC parsing and classification on arbitrary payloads. Invariants:
// - ParseMessage never throws, and is deterministic;
// - classification is total and consistent: every payload is a request, notification,
//   response or invalid, with the error code and message exactly when invalid, and each kind
//   has the members that define it;
// - nesting deeper than kMaxNestingDepth is refused: no accepted body is deeper;
// - the id is kept as its exact source text, which parses to the body's id, and comes back
//   byte for byte in a reply built with MakeResult/MakeError;
// - DumpJson of a parsed body parses back to the same value;
// - the plain parser, where it takes a payload, gives the nlohmann pass's value (number types
//   too) and id text.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "gateway/jsonrpc/bounded_json.h"
#include "gateway/jsonrpc/json_scan.h"
#include "gateway/jsonrpc/message.h"
#include "gateway/jsonrpc/plain_json.h"
#include "gateway/tests/same_typed_json.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using labgate::gateway::jsonrpc::BoundedJson;
using labgate::gateway::jsonrpc::DumpJson;
using labgate::gateway::jsonrpc::IncomingMessage;
using labgate::gateway::jsonrpc::kMaxNestingDepth;
using labgate::gateway::jsonrpc::MakeError;
using labgate::gateway::jsonrpc::MakeResult;
using labgate::gateway::jsonrpc::ParseBoundedJsonWithSax;
using labgate::gateway::jsonrpc::ParseMessage;
using labgate::gateway::jsonrpc::ParsePlainJson;
using labgate::gateway::jsonrpc::TopLevelMemberText;
using labgate::testing::SameTypedJson;
using nlohmann::json;
using Kind = IncomingMessage::Kind;

json Parse(std::string_view text) { return json::parse(text, nullptr, /*allow_exceptions=*/false); }

bool ValidId(const json& id) { return id.is_string() || id.is_number(); }

// Levels of arrays and objects in `value` ("[]" is 1); recursion is safe on a parsed body,
// which the parser kept within kMaxNestingDepth.
size_t Depth(const json& value) {
  if (!value.is_structured()) return 0;
  size_t deepest = 0;
  for (const json& child : value) deepest = std::max(deepest, Depth(child));
  return deepest + 1;
}

void CheckPlainParserAgrees(std::string_view payload) {
  BoundedJson plain;
  if (!ParsePlainJson(payload, kMaxNestingDepth, &plain)) return;
  const BoundedJson sax = ParseBoundedJsonWithSax(payload, kMaxNestingDepth);
  FUZZ_CHECK(sax.error == BoundedJson::Error::kNone);
  FUZZ_CHECK(SameTypedJson(plain.value, sax.value));
  FUZZ_CHECK(plain.id_text == sax.id_text);
}

void CheckReplyEchoesId(const IncomingMessage& message) {
  const std::string result = MakeResult(message.raw_id, {{"ok", true}});
  const IncomingMessage response = ParseMessage(result);
  FUZZ_CHECK(response.kind == Kind::kResponse);
  FUZZ_CHECK(response.raw_id == message.raw_id);
  const std::string error = MakeError(message.raw_id, -32603, "internal", {{"why", "fuzz"}});
  const IncomingMessage error_response = ParseMessage(error);
  FUZZ_CHECK(error_response.kind == Kind::kResponse);
  FUZZ_CHECK(error_response.raw_id == message.raw_id);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view payload(reinterpret_cast<const char*>(data), size);
  CheckPlainParserAgrees(payload);
  const IncomingMessage message = ParseMessage(payload);
  const IncomingMessage again = ParseMessage(payload);
  FUZZ_CHECK(again.kind == message.kind && again.raw_id == message.raw_id &&
             again.error_code == message.error_code && again.method == message.method);

  const json& body = message.body;
  FUZZ_CHECK(Depth(body) <= kMaxNestingDepth);
  if (message.kind == Kind::kInvalid) {
    FUZZ_CHECK(message.error_code == -32700 || message.error_code == -32600 ||
               message.error_code == -32602);
    FUZZ_CHECK(!message.error_message.empty());
    if (message.error_code == -32700) {
      FUZZ_CHECK(body.is_null() && message.raw_id == "null");
      return 0;
    }
  } else {
    FUZZ_CHECK(message.kind == Kind::kRequest || message.kind == Kind::kNotification ||
               message.kind == Kind::kResponse);
    FUZZ_CHECK(message.error_code == 0 && message.error_message.empty());
    FUZZ_CHECK(body.is_object() && body.contains("jsonrpc") && body["jsonrpc"] == "2.0");
  }

  // The body was parsed: it survives serialization.
  FUZZ_CHECK(Parse(DumpJson(body)) == body);

  switch (message.kind) {
    case Kind::kRequest:
    case Kind::kNotification: {
      FUZZ_CHECK(body["method"].is_string() && body["method"] == message.method);
      FUZZ_CHECK(!body.contains("params") || body["params"].is_object() ||
                 body["params"].is_array());
      FUZZ_CHECK(body.contains("id") == (message.kind == Kind::kRequest));
      break;
    }
    case Kind::kResponse:
      FUZZ_CHECK(!body.contains("method") && body.contains("id"));
      FUZZ_CHECK(body.contains("result") != body.contains("error"));
      FUZZ_CHECK(!body.contains("error") || body["error"].is_object());
      break;
    case Kind::kInvalid:
      break;
  }

  // The id: its exact text when it is valid, "null" otherwise.
  if (body.is_object() && body.contains("id") && ValidId(body["id"])) {
    const std::optional<std::string_view> raw = TopLevelMemberText(payload, "id");
    FUZZ_CHECK(raw.has_value() && *raw == message.raw_id);
    FUZZ_CHECK(Parse(message.raw_id) == body["id"]);
    if (message.kind != Kind::kInvalid) CheckReplyEchoesId(message);
  } else {
    FUZZ_CHECK(message.raw_id == "null");
  }
  return 0;
}
