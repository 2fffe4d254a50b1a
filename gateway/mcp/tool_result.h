// What a tool provider answers to tools/call: a CallToolResult as JSON, or already
// serialized. A successful call's result carries its structuredContent twice (once as a
// text content item, which clients without structured output read); StructuredResult
// serializes it once and builds both from that one text.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "absl/status/statusor.h"

namespace labgate::gateway {

class ToolResult {
 public:
  // A CallToolResult object; its members may be merged with others (the 2026 era's).
  ToolResult(nlohmann::json result)  // NOLINT(google-explicit-constructor): JSON is the norm
      : json_(std::move(result)) {}

  // A serialized CallToolResult object, whose top level has no _meta member and no member
  // of the 2026 era's, so that they can be appended to it as text.
  static ToolResult Serialized(std::string text) {
    ToolResult result(nullptr);
    result.text_ = std::move(text);
    result.serialized_ = true;
    return result;
  }

  bool serialized() const { return serialized_; }
  const std::string& text() const { return text_; }
  nlohmann::json& json() { return json_; }
  const nlohmann::json& json() const { return json_; }
  // The result as a JSON object, parsed again if it was serialized (tests, adapters).
  nlohmann::json AsJson() const { return serialized_ ? nlohmann::json::parse(text_) : json_; }

 private:
  nlohmann::json json_;
  std::string text_;
  bool serialized_ = false;
};

using ToolDone = std::function<void(absl::StatusOr<ToolResult>)>;

// The CallToolResult of a call that succeeded with `structured`:
// {"content":[{"text":<structured as text>,"type":"text"}],"isError":false,
//  "structuredContent":<structured>}, serialized once, byte for byte as serializing the
// same object with nlohmann (keys sorted, invalid UTF-8 replaced) would give it.
ToolResult StructuredResult(const nlohmann::json& structured);
// The same, from `structured_text`: structured's JSON text as that serializing gives it.
ToolResult StructuredResultText(const std::string& structured_text);

}  // namespace labgate::gateway
