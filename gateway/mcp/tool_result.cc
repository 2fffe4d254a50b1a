#include "gateway/mcp/tool_result.h"

namespace labgate::gateway {

using nlohmann::json;

ToolResult StructuredResult(const json& structured) {
  const std::string text = structured.dump(-1, ' ', false, json::error_handler_t::replace);
  // The text item's string: `text` escaped as a JSON string (it is valid UTF-8 by now).
  const std::string quoted = json(text).dump(-1, ' ', false, json::error_handler_t::replace);
  static constexpr char kHead[] = R"({"content":[{"text":)";
  static constexpr char kMiddle[] = R"(,"type":"text"}],"isError":false,"structuredContent":)";
  std::string result;
  result.reserve(sizeof(kHead) + quoted.size() + sizeof(kMiddle) + text.size() + 1);
  result.append(kHead);
  result.append(quoted);
  result.append(kMiddle);
  result.append(text);
  result.push_back('}');
  return ToolResult::Serialized(std::move(result));
}

}  // namespace labgate::gateway
