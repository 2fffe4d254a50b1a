#include "gateway/http/era_headers.h"

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "common/status_map.h"
#include "gateway/dialects/mcp_stateless/request_meta.h"

namespace labgate::gateway::http {

using nlohmann::json;

namespace {

std::optional<std::string> HeaderValue(const Request& request, std::string_view name) {
  auto it = request.find(boost::beast::string_view(name.data(), name.size()));
  if (it == request.end()) return std::nullopt;
  return std::string(it->value().data(), it->value().size());
}

std::string Mismatch(const jsonrpc::IncomingMessage& message, const std::string& text) {
  return jsonrpc::MakeError(message.raw_id, jsonrpc_code::kHeaderMismatch,
                            absl::StrCat("Header mismatch: ", text));
}

// The body's value as the header would carry it.
std::optional<std::string> BodyText(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  if (value.is_number()) return value.dump();
  return std::nullopt;
}

bool SameValue(const json& body, const std::string& header) {
  if (body.is_number()) {  // 42 and 42.0 are the same number
    double parsed = 0;
    char* end = nullptr;
    parsed = std::strtod(header.c_str(), &end);
    return end != header.c_str() && *end == '\0' && parsed == body.get<double>();
  }
  auto text = BodyText(body);
  return text && *text == header;
}

}  // namespace

std::optional<std::string> DecodeHeaderValue(std::string_view value) {
  for (char c : value) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f || byte > 0x7e) return std::nullopt;
  }
  constexpr std::string_view kPrefix = "=?base64?";
  constexpr std::string_view kSuffix = "?=";
  if (value.size() < kPrefix.size() + kSuffix.size() ||
      value.substr(0, kPrefix.size()) != kPrefix ||
      value.substr(value.size() - kSuffix.size()) != kSuffix) {
    return std::string(value);
  }
  std::string_view encoded =
      value.substr(kPrefix.size(), value.size() - kPrefix.size() - kSuffix.size());
  // Strict: the standard alphabet with correct padding, nothing else.
  if (encoded.size() % 4 != 0) return std::nullopt;
  for (size_t i = 0; i < encoded.size(); ++i) {
    char c = encoded[i];
    bool padding = c == '=' && i + 2 >= encoded.size();
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '/' && !padding) {
      return std::nullopt;
    }
  }
  std::string decoded;
  if (!absl::Base64Unescape(absl::string_view(encoded.data(), encoded.size()), &decoded)) {
    return std::nullopt;
  }
  return decoded;
}

std::vector<HeaderParamIndex::Param> HeaderParamIndex::For(const McpServer& server,
                                                           const std::string& tool) {
  absl::MutexLock lock(&mutex_);
  const uint64_t generation = server.tools_generation->load();
  if (generation != generation_) {
    params_.clear();
    for (ToolProvider* provider : server.tools) {
      for (const json& entry : provider->ListTools()) {
        const json schema = entry.value("inputSchema", json::object());
        const json properties =
            schema.is_object() ? schema.value("properties", json::object()) : json::object();
        std::vector<Param> mirrored;
        for (const auto& [property, definition] : properties.items()) {
          if (definition.is_object() && definition.contains("x-mcp-header") &&
              definition["x-mcp-header"].is_string()) {
            mirrored.push_back({property, definition["x-mcp-header"].get<std::string>()});
          }
        }
        if (!mirrored.empty()) params_[entry.value("name", std::string())] = std::move(mirrored);
      }
    }
    generation_ = generation;
  }
  auto it = params_.find(tool);
  return it == params_.end() ? std::vector<Param>() : it->second;
}

std::optional<std::string> CheckEraHeaders(const Request& request,
                                           const jsonrpc::IncomingMessage& message,
                                           const McpServer& server, HeaderParamIndex& index) {
  if (message.kind != jsonrpc::IncomingMessage::Kind::kRequest) return std::nullopt;
  auto method = HeaderValue(request, "mcp-method");
  if (!method) return Mismatch(message, "the Mcp-Method header is required");
  if (*method != message.method) {
    return Mismatch(message, absl::StrCat("Mcp-Method header value '", *method,
                                          "' does not match body value '", message.method, "'"));
  }
  const json params = message.body.value("params", json::object());
  // The body field Mcp-Name mirrors, for the methods that have one.
  const char* field = message.method == "tools/call" || message.method == "prompts/get" ? "name"
                      : message.method == "resources/read"                              ? "uri"
                      : message.method == "tasks/get" || message.method == "tasks/update" ||
                              message.method == "tasks/cancel"
                          ? "taskId"
                          : nullptr;
  if (field != nullptr) {
    const json body_value = params.is_object() ? params.value(field, json()) : json();
    auto header = HeaderValue(request, "mcp-name");
    if (!header) return Mismatch(message, "the Mcp-Name header is required");
    auto decoded = DecodeHeaderValue(*header);
    if (!decoded) return Mismatch(message, "the Mcp-Name header value is malformed");
    if (!body_value.is_string() || *decoded != body_value.get<std::string>()) {
      return Mismatch(
          message,
          absl::StrCat("Mcp-Name header value '", *decoded, "' does not match body value '",
                       body_value.is_string() ? body_value.get<std::string>() : std::string(),
                       "'"));
    }
  }
  if (message.method == "tools/call" && params.is_object() && params.contains("name") &&
      params["name"].is_string()) {
    const json arguments = params.value("arguments", json::object());
    for (const auto& param : index.For(server, params["name"].get<std::string>())) {
      const std::string header_name =
          absl::StrCat("mcp-param-", absl::AsciiStrToLower(param.header));
      auto header = HeaderValue(request, header_name);
      const bool has_value = arguments.is_object() && arguments.contains(param.property) &&
                             !arguments[param.property].is_null();
      if (!header) {
        if (has_value) {
          return Mismatch(message,
                          absl::StrCat("the Mcp-Param-", param.header, " header is required when '",
                                       param.property, "' is given"));
        }
        continue;
      }
      auto decoded = DecodeHeaderValue(*header);
      if (!decoded) {
        return Mismatch(message,
                        absl::StrCat("the Mcp-Param-", param.header, " header value is malformed"));
      }
      if (!has_value || !SameValue(arguments[param.property], *decoded)) {
        return Mismatch(
            message, absl::StrCat("Mcp-Param-", param.header, " header does not match argument '",
                                  param.property, "'"));
      }
    }
  }
  return std::nullopt;
}

}  // namespace labgate::gateway::http
