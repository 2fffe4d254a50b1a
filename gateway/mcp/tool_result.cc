#include "gateway/mcp/tool_result.h"

#include <algorithm>

namespace labgate::gateway {

using nlohmann::json;

namespace {

// Appends serialized JSON `text` as a JSON string. That text is valid UTF-8 and holds no
// control characters (the serializer escaped them), so only quotes and backslashes need
// escaping; the bytes come out as nlohmann's serializer would write them.
void AppendQuoted(const std::string& text, std::string* out) {
  out->push_back('"');
  size_t run = 0;  // start of the bytes not yet copied
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c != '"' && c != '\\') continue;
    out->append(text, run, i - run);
    out->push_back('\\');
    out->push_back(c);
    run = i + 1;
  }
  out->append(text, run, std::string::npos);
  out->push_back('"');
}

}  // namespace

ToolResult StructuredResult(const json& structured) {
  return StructuredResultText(structured.dump(-1, ' ', false, json::error_handler_t::replace));
}

ToolResult StructuredResultText(const std::string& text) {
  static constexpr char kHead[] = R"({"content":[{"text":)";
  static constexpr char kMiddle[] = R"(,"type":"text"}],"isError":false,"structuredContent":)";
  std::string result;
  const auto escapes =
      std::count_if(text.begin(), text.end(), [](char c) { return c == '"' || c == '\\'; });
  result.reserve(sizeof(kHead) + 2 + text.size() + static_cast<size_t>(escapes) + sizeof(kMiddle) +
                 text.size() + 1);
  result.append(kHead);
  AppendQuoted(text, &result);
  result.append(kMiddle);
  result.append(text);
  result.push_back('}');
  return ToolResult::Serialized(std::move(result));
}

}  // namespace labgate::gateway
