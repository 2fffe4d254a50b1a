#include "gateway/mcp/tool_result.h"

#include <algorithm>
#include <string_view>

namespace labgate::gateway {

using nlohmann::json;

namespace {

// Writes serialized JSON `text` at `out` as a JSON string and returns the end. That text is
// valid UTF-8 and holds no control characters (the serializer escaped them), so only quotes
// and backslashes need escaping; the bytes come out as nlohmann's serializer would write them.
// `out` has room for twice the text and the quotes.
char* WriteQuoted(const std::string& text, char* out) {
  *out++ = '"';
  for (const char c : text) {
    if (c == '"' || c == '\\') *out++ = '\\';
    *out++ = c;
  }
  *out++ = '"';
  return out;
}

}  // namespace

ToolResult StructuredResult(const json& structured) {
  return StructuredResultText(structured.dump(-1, ' ', false, json::error_handler_t::replace));
}

ToolResult StructuredResultText(const std::string& text) {
  static constexpr std::string_view kHead = R"({"content":[{"text":)";
  static constexpr std::string_view kMiddle =
      R"(,"type":"text"}],"isError":false,"structuredContent":)";
  // One pass over the text: room for every byte escaped, then cut to what was written.
  std::string result(kHead.size() + 2 + 2 * text.size() + kMiddle.size() + text.size() + 1, '\0');
  char* out = result.data();
  out = std::copy(kHead.begin(), kHead.end(), out);
  out = WriteQuoted(text, out);
  out = std::copy(kMiddle.begin(), kMiddle.end(), out);
  out = std::copy(text.begin(), text.end(), out);
  *out++ = '}';
  result.resize(static_cast<size_t>(out - result.data()));
  return ToolResult::Serialized(std::move(result));
}

}  // namespace labgate::gateway
