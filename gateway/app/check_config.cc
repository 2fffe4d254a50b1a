#include "gateway/app/check_config.h"

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "common/caller_auth.h"
#include "common/check_config.h"
#include "common/metrics/metrics_flags.h"
#include "common/tls_flags.h"
#include "gateway/backends/serial_benches.h"
#include "gateway/http/http_flags.h"

ABSL_FLAG(std::string, gateway_token_file, "",
          "File whose first line is the token this gateway presents to remote services "
          "(authorization: Bearer TOKEN), so a labgate-serial started with the same file lets "
          "it name the principal each call is for");

namespace labgate::gateway {
namespace {

absl::Status CheckConfig(BackendOptions* options, bool serve_stdio,
                         const std::vector<std::string>& positional,
                         std::vector<std::string>* lines) {
  if (!positional.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("unexpected argument '", positional[0], "'"));
  }
  if (options->serial_addrs.size() > 1 ||
      (options->serial_addrs.size() == 1 &&
       options->serial_addrs[0].find('=') != std::string::npos)) {
    auto benches = ParseBenches(options->serial_addrs);
    if (!benches.ok()) return benches.status();
    for (const Bench& bench : *benches) {
      if (absl::Status status = CheckHostPort("--serial-addr", bench.address, false);
          !status.ok()) {
        return status;
      }
      lines->push_back(absl::StrCat("bench ", bench.name.empty() ? "(unnamed)" : bench.name,
                                    ": serial service at ", bench.address));
    }
    options->serial_benches = std::move(*benches);
    options->serial_addr = options->serial_benches.front().address;
  }
  bool any_remote = false;
  bool any_embedded = false;
  for (auto [flag, address, name] :
       {std::tuple{"--session-addr", &options->session_addr, "session"},
        {"--serial-addr", &options->serial_addr, "serial"},
        {"--actions-addr", &options->actions_addr, "actions"}}) {
    if (address->empty()) {
      any_embedded = true;
      lines->push_back(absl::StrCat(name, " service: embedded"));
      continue;
    }
    any_remote = true;
    if (absl::Status status = CheckHostPort(flag, *address, false); !status.ok()) return status;
    lines->push_back(absl::StrCat(name, " service at ", *address));
  }
  ClientTlsFiles tls = ClientTlsFromFlags();
  auto credentials = MakeChannelCredentials(tls);
  if (!credentials.ok()) return credentials.status();
  if (!tls.ca.empty() && !any_remote) {
    return absl::InvalidArgumentError("--tls-ca needs a remote service (--*-addr)");
  }
  options->channel_credentials = *credentials;
  if (const std::string path = absl::GetFlag(FLAGS_gateway_token_file); !path.empty()) {
    if (!any_remote) {
      return absl::InvalidArgumentError("--gateway-token-file needs a remote service (--*-addr)");
    }
    absl::StatusOr<std::string> token = ReadTokenFile(path, "--gateway-token-file");
    if (!token.ok()) return token.status();
    options->gateway_token = *std::move(token);
    lines->push_back("to remote services: presents the gateway token");
  }
  if (any_remote) lines->push_back(absl::StrCat("to remote services: ", DescribeClientTls(tls)));
  if (!options->serial_addr.empty() && options->gateway_token.empty() && tls.cert.empty()) {
    lines->push_back(
        "warning: neither a gateway token nor a client certificate, so labgate-serial refuses "
        "the principals this gateway names (give --gateway-token-file)");
  }
  if (any_embedded && options->session_addr.empty()) {
    if (absl::Status status = CheckWritableDirIfPresent("--data-dir", options->data_dir);
        !status.ok()) {
      return status;
    }
    lines->push_back(absl::StrCat("embedded sessions.db in ", options->data_dir));
  }
  if (http::HttpRequested()) {
    auto http_options = http::HttpOptionsFromFlags();
    if (!http_options.ok()) return http_options.status();
    lines->push_back(absl::StrCat("MCP over HTTP on ", http_options->host, ":", http_options->port,
                                  http_options->auth_tokens.empty() ? "" : " with bearer tokens"));
  }
  if (serve_stdio) lines->push_back("MCP on stdio");
  if (!metrics::MetricsListenFlag().empty()) {
    auto operator_options = http::OperatorHttpOptionsFromFlags();
    if (!operator_options.ok()) return operator_options.status();
    lines->push_back(absl::StrCat(
        "operator routes (/metrics, /healthz, /readyz) on ", operator_options->host, ":",
        operator_options->port,
        operator_options->auth_tokens.empty() ? "" : " (/metrics with bearer tokens)"));
  }
  return absl::OkStatus();
}

}  // namespace

GatewayConfig CheckGatewayConfig(BackendOptions* options, bool serve_stdio,
                                 const std::vector<std::string>& positional) {
  GatewayConfig config;
  config.status = CheckConfig(options, serve_stdio, positional, &config.lines);
  return config;
}

}  // namespace labgate::gateway
