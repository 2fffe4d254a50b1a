#include "gateway/jsonrpc/message.h"

#include <exception>
#include <optional>
#include <utility>

#include "common/status_map.h"
#include "gateway/jsonrpc/bounded_json.h"

namespace labgate::gateway::jsonrpc {
namespace {

using Kind = IncomingMessage::Kind;
using nlohmann::json;

constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";

IncomingMessage Invalid(IncomingMessage message, int code, std::string text) {
  message.kind = Kind::kInvalid;
  message.error_code = code;
  message.error_message = std::move(text);
  return message;
}

IncomingMessage ParseError(std::string text) {
  return Invalid(IncomingMessage{}, jsonrpc_code::kParseError, "Parse error: " + std::move(text));
}

// nlohmann's what() starts with "[json.exception.parse_error.101] "; the rest is the useful
// part ("parse error at line 1, column 7: syntax error while parsing ...").
std::string DescribeJsonError(std::string_view what) {
  if (!what.empty() && what.front() == '[') {
    size_t close = what.find("] ");
    if (close != std::string_view::npos) what.remove_prefix(close + 2);
  }
  return std::string(what);
}

bool IsValidId(const json& id) { return id.is_string() || id.is_number(); }

void AppendId(std::string* out, std::string_view raw_id) {
  out->append(raw_id.empty() ? std::string_view("null") : raw_id);
}

}  // namespace

std::string DumpJson(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

IncomingMessage ParseMessage(std::string_view payload) {
  try {
    if (payload.substr(0, kByteOrderMark.size()) == kByteOrderMark) {
      // nlohmann would silently skip it; JSON text must not start with one (RFC 8259 8.1).
      return ParseError("byte order mark is not allowed");
    }
    // nlohmann's lexer takes a NUL byte for the end of input and would accept
    // "{...}\0garbage"; a raw NUL is never valid JSON, in or out of strings.
    if (size_t nul = payload.find('\0'); nul != std::string_view::npos) {
      return ParseError("raw NUL byte at offset " + std::to_string(nul));
    }
    BoundedJson parsed = ParseBoundedJson(payload, kMaxNestingDepth);
    if (parsed.error == BoundedJson::Error::kTooDeep) {
      return ParseError("arrays and objects nest deeper than " + std::to_string(kMaxNestingDepth) +
                        " levels");
    }
    if (parsed.error == BoundedJson::Error::kSyntax) {
      return ParseError(DescribeJsonError(parsed.error_text));
    }
    IncomingMessage message;
    message.body = std::move(parsed.value);
    const json& body = message.body;
    if (body.is_array()) {
      return Invalid(std::move(message), jsonrpc_code::kInvalidRequest,
                     "batch requests are not supported");
    }
    if (!body.is_object()) {
      return Invalid(std::move(message), jsonrpc_code::kInvalidRequest,
                     "a request must be a JSON object");
    }

    auto id = body.find("id");
    const bool has_id = id != body.end();
    if (has_id && IsValidId(*id)) {
      message.raw_id = parsed.id_text.has_value() ? *std::move(parsed.id_text) : DumpJson(*id);
    }

    auto version = body.find("jsonrpc");
    if (version == body.end() || !version->is_string() ||
        version->get_ref<const std::string&>() != "2.0") {
      return Invalid(std::move(message), jsonrpc_code::kInvalidRequest,
                     "\"jsonrpc\" must be exactly \"2.0\"");
    }
    if (has_id && !IsValidId(*id)) {
      return Invalid(std::move(message), jsonrpc_code::kInvalidRequest,
                     "\"id\" must be a string or a number");
    }

    auto method = body.find("method");
    if (method != body.end()) {
      if (!method->is_string()) {
        return Invalid(std::move(message), jsonrpc_code::kInvalidRequest,
                       "\"method\" must be a string");
      }
      message.method = method->get<std::string>();
      auto params = body.find("params");
      if (params != body.end() && !params->is_object() && !params->is_array()) {
        return Invalid(std::move(message), jsonrpc_code::kInvalidParams,
                       "\"params\" must be an object or an array");
      }
      message.kind = has_id ? Kind::kRequest : Kind::kNotification;
      return message;
    }

    const bool has_result = body.contains("result");
    auto error = body.find("error");
    const bool has_error = error != body.end();
    if (!has_result && !has_error) {
      return Invalid(std::move(message), jsonrpc_code::kInvalidRequest,
                     "missing \"method\" (or \"result\"/\"error\" for a response)");
    }
    if (!has_id) {
      return Invalid(std::move(message), jsonrpc_code::kInvalidRequest,
                     "a response needs an \"id\"");
    }
    if (has_result && has_error) {
      return Invalid(std::move(message), jsonrpc_code::kInvalidRequest,
                     "a response has either \"result\" or \"error\", not both");
    }
    if (has_error && !error->is_object()) {
      return Invalid(std::move(message), jsonrpc_code::kInvalidRequest,
                     "\"error\" must be an object");
    }
    message.kind = Kind::kResponse;
    return message;
  } catch (const std::exception& e) {
    // Only allocation failure is expected here; the message is refused, not the process.
    return ParseError(DescribeJsonError(e.what()));
  }
}

std::string MakeResult(std::string_view raw_id, const json& result) {
  std::string body = DumpJson(result);
  std::string out;
  out.reserve(body.size() + raw_id.size() + 32);
  out.append("{\"jsonrpc\":\"2.0\",\"id\":");
  AppendId(&out, raw_id);
  out.append(",\"result\":");
  out.append(body);
  out.push_back('}');
  return out;
}

std::string MakeError(std::string_view raw_id, int code, std::string_view message,
                      const json& data) {
  std::string out = "{\"jsonrpc\":\"2.0\",\"id\":";
  AppendId(&out, raw_id);
  out.append(",\"error\":{\"code\":");
  out.append(std::to_string(code));
  out.append(",\"message\":");
  out.append(DumpJson(json(std::string(message))));
  if (!data.is_null()) {
    out.append(",\"data\":");
    out.append(DumpJson(data));
  }
  out.append("}}");
  return out;
}

std::string MakeNotification(std::string_view method, const json& params) {
  std::string out = "{\"jsonrpc\":\"2.0\",\"method\":";
  out.append(DumpJson(json(std::string(method))));
  if (!params.is_null()) {
    out.append(",\"params\":");
    out.append(DumpJson(params));
  }
  out.push_back('}');
  return out;
}

std::string MakeRequest(std::string_view raw_id, std::string_view method, const json& params) {
  std::string out = "{\"jsonrpc\":\"2.0\",\"id\":";
  AppendId(&out, raw_id);
  out.append(",\"method\":");
  out.append(DumpJson(json(std::string(method))));
  if (!params.is_null()) {
    out.append(",\"params\":");
    out.append(DumpJson(params));
  }
  out.push_back('}');
  return out;
}

}  // namespace labgate::gateway::jsonrpc
