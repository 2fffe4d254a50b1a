// Small builders for the content blocks and completions the fixtures return.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace labgate::gateway::conformance {

inline nlohmann::json TextBlock(const std::string& text) {
  return {{"type", "text"}, {"text", text}};
}

inline nlohmann::json ImageBlock(const std::string& base64, const std::string& mime_type) {
  return {{"type", "image"}, {"data", base64}, {"mimeType", mime_type}};
}

inline nlohmann::json EmbeddedTextResource(const std::string& uri, const std::string& mime_type,
                                           const std::string& text) {
  return {{"type", "resource"},
          {"resource", {{"uri", uri}, {"mimeType", mime_type}, {"text", text}}}};
}

// A successful CallToolResult with one text block.
inline nlohmann::json TextResult(const std::string& text) {
  return {{"content", nlohmann::json::array({TextBlock(text)})}};
}

// A CallToolResult for a tool that ran and failed.
inline nlohmann::json ToolError(const std::string& text) {
  return {{"content", nlohmann::json::array({TextBlock(text)})}, {"isError", true}};
}

// The candidates that start with `prefix`, ignoring ASCII case, in their given order.
std::vector<std::string> CompleteFrom(const std::vector<std::string>& candidates,
                                      const std::string& prefix);

}  // namespace labgate::gateway::conformance
