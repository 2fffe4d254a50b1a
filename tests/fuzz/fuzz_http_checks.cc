// The HTTP transport's request checks on arbitrary requests, parsed by Beast as HttpConnection
// parses them: Host and Origin allow-lists, the bearer token, Accept, the Base64 header
// sentinel and the 2026 era's header rules. Invariants:
// - exactly one non-empty Host is required, none allowed only on HTTP/1.0 with
//   --allow-no-host;
// - an empty Host or Origin passes the allow-lists, "*" admits every well-formed one, an empty list
// nothing
//   else; a well-formed Host is allowed by its own name; a malformed one never is;
// - a bearer token is found only when presented exactly, and always when it is;
// - Accept admits a media type it lists; SplitList yields trimmed, non-empty items;
// - the header sentinel round-trips any bytes;
// - an era-header refusal is a -32020 error with the request's id; a request that passes
//   carries its method in Mcp-Method, and its tool's name in Mcp-Name.
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "gateway/http/era_headers.h"
#include "gateway/http/http_security.h"
#include "gateway/jsonrpc/message.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

namespace http = labgate::gateway::http;
namespace beast_http = boost::beast::http;
using labgate::gateway::jsonrpc::IncomingMessage;
using labgate::gateway::jsonrpc::ParseMessage;
using nlohmann::json;

// One tool whose arguments are mirrored into headers, as x-mcp-header marks them.
class HeaderTools : public labgate::gateway::ToolProvider {
 public:
  std::vector<json> ListTools() const override {
    return {{{"name", "set_region"},
             {"inputSchema",
              {{"type", "object"},
               {"properties",
                {{"region", {{"type", "string"}, {"x-mcp-header", "Region"}}},
                 {"count", {{"type", "number"}, {"x-mcp-header", "Count"}}},
                 {"dry_run", {{"type", "boolean"}, {"x-mcp-header", "Dry-Run"}}}}}}}}};
  }
  bool HasTool(const std::string& name) const override { return name == "set_region"; }
  void CallTool(const std::string&, const json&, std::shared_ptr<labgate::gateway::RequestContext>,
                labgate::gateway::ToolDone done) override {
    done(json::object());
  }
};

std::string Header(const http::Request& request, std::string_view name) {
  auto it = request.find(boost::beast::string_view(name.data(), name.size()));
  return it == request.end() ? std::string() : std::string(it->value().data(), it->value().size());
}

std::string_view Trimmed(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

void CheckHost(const std::string& host) {
  const bool empty = Trimmed(host).empty();
  const bool well_formed = http::WellFormedAuthority(Trimmed(host));
  FUZZ_CHECK(http::HostAllowed(host, {"*"}) == (empty || well_formed));
  FUZZ_CHECK(http::HostAllowed(host, {}) == empty);
  const std::string name = http::HostName(host);
  FUZZ_CHECK(absl::AsciiStrToLower(name) == name);
  if (well_formed) {
    FUZZ_CHECK(http::HostAllowed(host, {name}));
    FUZZ_CHECK(http::WellFormedAuthority(name) && http::HostName(name) == name);
  }
}

// Exactly one non-empty Host passes on any version; none passes only on HTTP/1.0 when allowed.
void CheckHostRule(const http::Request& request) {
  const size_t count = request.count(beast_http::field::host);
  const std::string host = Header(request, "host");
  for (unsigned version : {10u, 11u}) {
    for (bool allow_no_host : {false, true}) {
      const bool fine = !http::HostHeaderProblem(count, host, version, allow_no_host);
      const bool expected =
          count == 1 ? !Trimmed(host).empty() : count == 0 && version == 10 && allow_no_host;
      FUZZ_CHECK(fine == expected);
    }
  }
}

void CheckOrigin(const std::string& origin) {
  const std::string_view trimmed = Trimmed(origin);
  FUZZ_CHECK(http::OriginAllowed(origin, {"*"}));
  FUZZ_CHECK(http::OriginAllowed(origin, {}) == trimmed.empty());
  if (trimmed.empty()) return;
  FUZZ_CHECK(http::OriginAllowed(origin, {std::string(trimmed)}));
  // A malformed authority (userinfo, "[::1].evil.com", ...) is never admitted by host name.
  const size_t scheme_end = trimmed.find("://");
  if (scheme_end == std::string_view::npos) return;
  std::string_view authority = trimmed.substr(scheme_end + 3);
  authority = authority.substr(0, authority.find('/'));
  if (http::WellFormedAuthority(authority)) {
    FUZZ_CHECK(http::OriginAllowed(origin, {http::HostName(authority)}));
  } else {
    const std::string entry = http::HostName(authority);
    FUZZ_CHECK(http::OriginAllowed(origin, {entry}) ==
               (entry == "*" || entry == absl::AsciiStrToLower(std::string(trimmed))));
  }
}

void CheckBearer(const std::string& authorization) {
  const std::vector<http::HttpOptions::NamedToken> tokens = {{"alice", "s3cret-token-a"},
                                                             {"bob", "other-token-b"}};
  const std::optional<std::string> named = http::BearerPrincipal(authorization, tokens);
  if (named) {
    const std::string& token = *named == "alice" ? tokens[0].token : tokens[1].token;
    FUZZ_CHECK(*named == "alice" || *named == "bob");
    FUZZ_CHECK(Trimmed(Trimmed(authorization).substr(7)) == token);
  }
  // Whatever was presented, presented exactly, names its principal.
  const std::string presented(Trimmed(authorization));
  if (!presented.empty() && presented.find_first_of(" \t\r") == std::string::npos) {
    const std::vector<http::HttpOptions::NamedToken> own = {{"carol", presented}};
    FUZZ_CHECK(http::BearerPrincipal("Bearer " + presented, own) == "carol");
    FUZZ_CHECK(!http::BearerPrincipal("Bearer " + presented + "x", own).has_value());
  }
}

void CheckAccept(const std::string& accept) {
  for (const std::string& item : http::SplitList(accept)) {
    FUZZ_CHECK(!item.empty() && item.find(',') == std::string::npos);
    FUZZ_CHECK(Trimmed(item) == item && item.front() != ' ' && item.front() != '\t');
  }
  FUZZ_CHECK(http::AcceptIncludes(accept + ", application/json", "application/json"));
  FUZZ_CHECK(http::AcceptIncludes(accept + ",*/*", "text/event-stream"));
}

void CheckSentinel(const std::string& value) {
  const std::optional<std::string> decoded = http::DecodeHeaderValue(value);
  if (decoded && value.rfind("=?base64?", 0) != 0) FUZZ_CHECK(*decoded == value);
  const std::string wrapped = "=?base64?" + absl::Base64Escape(value) + "?=";
  FUZZ_CHECK(http::DecodeHeaderValue(wrapped) == value);
}

void CheckEraHeaders(const http::Request& request) {
  static HeaderTools* tools = new HeaderTools;
  static labgate::gateway::McpServer* server = [] {
    auto* built = new labgate::gateway::McpServer;
    built->tools.push_back(tools);
    return built;
  }();
  static http::HeaderParamIndex* index = new http::HeaderParamIndex;

  const IncomingMessage message = ParseMessage(request.body());
  const std::optional<std::string> refusal =
      http::CheckEraHeaders(request, message, *server, *index);
  if (message.kind != IncomingMessage::Kind::kRequest) {
    FUZZ_CHECK(!refusal.has_value());
    return;
  }
  if (refusal) {
    const IncomingMessage reply = ParseMessage(*refusal);
    FUZZ_CHECK(reply.kind == IncomingMessage::Kind::kResponse && reply.raw_id == message.raw_id);
    FUZZ_CHECK(reply.body["error"]["code"] == -32020);
    return;
  }
  FUZZ_CHECK(Header(request, "mcp-method") == message.method);
  if (message.method == "tools/call") {
    FUZZ_CHECK(http::DecodeHeaderValue(Header(request, "mcp-name")) ==
               message.body["params"]["name"].get<std::string>());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  beast_http::request_parser<beast_http::string_body> parser;
  parser.eager(true);
  parser.header_limit(16 * 1024);
  parser.body_limit(64 * 1024);
  boost::beast::error_code ec;
  parser.put(boost::asio::buffer(data, size), ec);
  if (ec || !parser.is_done()) return 0;
  const http::Request request = parser.release();

  CheckHost(Header(request, "host"));
  CheckHostRule(request);
  CheckOrigin(Header(request, "origin"));
  CheckBearer(Header(request, "authorization"));
  CheckAccept(Header(request, "accept"));
  for (const auto& field : request) {
    CheckSentinel(std::string(field.value().data(), field.value().size()));
  }
  CheckEraHeaders(request);
  return 0;
}
