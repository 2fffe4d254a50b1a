#include "gateway/http/http_flags.h"

#include <charconv>
#include <string_view>

#include "absl/flags/flag.h"
#include "common/log.h"
#include "common/metrics/metrics_flags.h"
#include "common/port_file.h"
#include "gateway/http/http_security.h"

ABSL_FLAG(std::string, http, "",
          "Serve MCP over Streamable HTTP on HOST:PORT (\":PORT\" binds 127.0.0.1; port 0 picks "
          "a free one). Turns stdio off unless --stdio is also given");
ABSL_FLAG(std::string, http_port_file, "", "Write the bound HTTP port to this file");
ABSL_FLAG(std::string, allowed_origins, "localhost,127.0.0.1,[::1]",
          "Origins accepted on /mcp: host names (any scheme/port) or full origins; * = any");
ABSL_FLAG(std::string, allowed_hosts, "localhost,127.0.0.1,[::1]",
          "Host header values accepted on /mcp: host names (any port) or host:port; * = any");
ABSL_FLAG(std::string, auth_token_file, "",
          "File of bearer tokens, one per line; when set, /mcp and /metrics require one of them");
ABSL_FLAG(int64_t, http_max_body_bytes, 4 * 1024 * 1024, "Largest accepted HTTP request body");
ABSL_FLAG(int64_t, http_max_connections, 4096, "Most HTTP connections open at once");
ABSL_FLAG(int64_t, http_max_connections_per_ip, 0,
          "Most HTTP connections open at once from one IP address (0: no cap)");
ABSL_FLAG(int64_t, http_write_timeout_ms, 60000,
          "Output must be written to an HTTP client within this time, else it is disconnected");
ABSL_FLAG(int64_t, port_idle_release_ms, 10 * 60 * 1000,
          "An HTTP principal that makes no request for this long releases its serial ports");
ABSL_FLAG(int64_t, http_read_timeout_ms, 10000,
          "Time allowed for one request's body to arrive after its header");
ABSL_FLAG(int64_t, header_timeout_ms, 5000,
          "A connection that has not sent a complete request header within this time is "
          "closed (from the accept, or from the first byte of a later request)");
ABSL_FLAG(bool, allow_no_host, false,
          "Serve HTTP/1.0 requests that carry no Host header (else 400)");
ABSL_FLAG(int64_t, session_idle_timeout_ms, 30 * 60 * 1000,
          "An HTTP session with no request and no open stream for this long expires");

namespace labgate::gateway::http {

bool HttpRequested() { return !absl::GetFlag(FLAGS_http).empty(); }

absl::Status ParseListenAddress(const std::string& text, HttpOptions* options) {
  std::string host = "127.0.0.1";
  std::string port = text;
  if (!text.empty() && text.front() == '[') {
    size_t close = text.find("]:");
    if (close == std::string::npos) return absl::InvalidArgumentError("--http: want [V6]:PORT");
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else if (size_t colon = text.rfind(':'); colon != std::string::npos) {
    if (colon > 0) host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  if (host == "localhost") host = "127.0.0.1";
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value > 65535) {
    return absl::InvalidArgumentError("--http: bad port in '" + text + "'");
  }
  options->host = host;
  options->port = static_cast<uint16_t>(value);
  return absl::OkStatus();
}

namespace {

// Everything but the address.
absl::StatusOr<HttpOptions> OptionsFromFlags() {
  HttpOptions options;
  options.allowed_origins = SplitList(absl::GetFlag(FLAGS_allowed_origins));
  options.allowed_hosts = SplitList(absl::GetFlag(FLAGS_allowed_hosts));
  if (std::string file = absl::GetFlag(FLAGS_auth_token_file); !file.empty()) {
    auto tokens = LoadTokenFile(file);
    if (!tokens.ok()) return tokens.status();
    options.auth_tokens = std::move(*tokens);
  }
  auto positive = [](int64_t value, const char* flag) -> absl::Status {
    if (value <= 0) return absl::InvalidArgumentError(std::string(flag) + " must be positive");
    return absl::OkStatus();
  };
  for (auto [value, name] :
       {std::pair{absl::GetFlag(FLAGS_http_max_body_bytes), "--http-max-body-bytes"},
        {absl::GetFlag(FLAGS_http_max_connections), "--http-max-connections"},
        {absl::GetFlag(FLAGS_http_read_timeout_ms), "--http-read-timeout-ms"},
        {absl::GetFlag(FLAGS_header_timeout_ms), "--header-timeout-ms"},
        {absl::GetFlag(FLAGS_http_write_timeout_ms), "--http-write-timeout-ms"},
        {absl::GetFlag(FLAGS_session_idle_timeout_ms), "--session-idle-timeout-ms"},
        {absl::GetFlag(FLAGS_port_idle_release_ms), "--port-idle-release-ms"}}) {
    if (absl::Status status = positive(value, name); !status.ok()) return status;
  }
  options.max_body_bytes = static_cast<size_t>(absl::GetFlag(FLAGS_http_max_body_bytes));
  options.max_connections = static_cast<size_t>(absl::GetFlag(FLAGS_http_max_connections));
  if (absl::GetFlag(FLAGS_http_max_connections_per_ip) < 0) {
    return absl::InvalidArgumentError("--http-max-connections-per-ip must be 0 or positive");
  }
  options.max_connections_per_ip =
      static_cast<size_t>(absl::GetFlag(FLAGS_http_max_connections_per_ip));
  options.read_timeout = std::chrono::milliseconds(absl::GetFlag(FLAGS_http_read_timeout_ms));
  options.header_timeout = std::chrono::milliseconds(absl::GetFlag(FLAGS_header_timeout_ms));
  options.allow_no_host = absl::GetFlag(FLAGS_allow_no_host);
  options.write_timeout = std::chrono::milliseconds(absl::GetFlag(FLAGS_http_write_timeout_ms));
  options.session_idle_timeout =
      std::chrono::milliseconds(absl::GetFlag(FLAGS_session_idle_timeout_ms));
  options.port_idle_release = std::chrono::milliseconds(absl::GetFlag(FLAGS_port_idle_release_ms));

  return options;
}

std::string ShownHost(const std::string& host) {
  return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

}  // namespace

absl::StatusOr<HttpOptions> HttpOptionsFromFlags() {
  auto options = OptionsFromFlags();
  if (!options.ok()) return options.status();
  if (absl::Status status = ParseListenAddress(absl::GetFlag(FLAGS_http), &*options);
      !status.ok()) {
    return status;
  }
  return options;
}

absl::StatusOr<HttpOptions> OperatorHttpOptionsFromFlags() {
  if (absl::Status valid = metrics::CheckMetricsListenFlag(); !valid.ok()) return valid;
  auto options = OptionsFromFlags();
  if (!options.ok()) return options.status();
  if (absl::Status status = ParseListenAddress(metrics::MetricsListenFlag(), &*options);
      !status.ok()) {
    return status;
  }
  options->operator_only = true;
  return options;
}

absl::StatusOr<std::unique_ptr<HttpServer>> StartHttpFromFlags(
    boost::asio::io_context& io, const McpServer* server, ReadinessProbe readiness,
    stateless::StatelessDialect* stateless_dialect,
    std::vector<boost::asio::io_context*> connection_contexts) {
  auto parsed = HttpOptionsFromFlags();
  if (!parsed.ok()) return parsed.status();
  HttpOptions options = std::move(*parsed);
  auto http =
      std::make_unique<HttpServer>(io, server, options, std::move(readiness), stateless_dialect);
  http->SetConnectionContexts(std::move(connection_contexts));
  if (absl::Status status = http->Start(); !status.ok()) return status;
  LG_LOG(kInfo) << "labgate listening on http://" << ShownHost(options.host) << ":" << http->port()
                << "/mcp";
  if (absl::Status written = WritePortFile(absl::GetFlag(FLAGS_http_port_file), http->port());
      !written.ok()) {
    return written;
  }
  return http;
}

absl::StatusOr<std::unique_ptr<HttpServer>> StartOperatorHttpFromFlags(boost::asio::io_context& io,
                                                                       const McpServer* server,
                                                                       ReadinessProbe readiness) {
  if (metrics::MetricsListenFlag().empty()) return std::unique_ptr<HttpServer>();
  auto options = OperatorHttpOptionsFromFlags();
  if (!options.ok()) return options.status();
  auto http = std::make_unique<HttpServer>(io, server, *options, std::move(readiness));
  if (absl::Status status = http->Start(); !status.ok()) return status;
  LG_LOG(kInfo) << "labgate metrics on http://" << ShownHost(options->host) << ":" << http->port()
                << "/metrics";
  if (absl::Status written = metrics::WriteMetricsPortFile(http->port()); !written.ok()) {
    return written;
  }
  return http;
}

}  // namespace labgate::gateway::http
