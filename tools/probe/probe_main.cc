// labgate-probe: the healthcheck of labgate's image and manifests. Exits 0 only when
// the service answers healthy, so orchestrators can wait on it. `token FILE` makes a
// deployment's gateway token once, before the services that read it start.
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "common/check_config.h"
#include "common/cli.h"
#include "common/tls_flags.h"
#include "tools/probe/grpc_check.h"
#include "tools/probe/http_check.h"
#include "tools/probe/token_file.h"

ABSL_FLAG(int64_t, timeout_ms, 3000, "How long to wait for an answer");

namespace {

constexpr char kUsage[] =
    "labgate-probe grpc HOST:PORT [SERVICE] [--tls-ca FILE [--tls-cert FILE --tls-key FILE]]\n"
    "       labgate-probe http URL\n"
    "       labgate-probe token FILE\n"
    "Exits 0 when grpc.health.v1 says SERVING, or when the URL answers 2xx; `token` writes a\n"
    "random gateway token to FILE (mode 0600) unless FILE already holds one.";

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args = labgate::ParseFlags(argc, argv, kUsage);
  const auto timeout = std::chrono::milliseconds(absl::GetFlag(FLAGS_timeout_ms));
  absl::Status usage_error = absl::OkStatus();
  if (args.empty()) usage_error = absl::InvalidArgumentError("want grpc, http or token");
  const bool grpc = !args.empty() && args[0] == "grpc";
  const bool http = !args.empty() && args[0] == "http";
  const bool token = !args.empty() && args[0] == "token";
  if (usage_error.ok() && !grpc && !http && !token) {
    usage_error =
        absl::InvalidArgumentError("unknown check '" + args[0] + "'; want grpc, http or token");
  }
  if (usage_error.ok() && token && args.size() != 2) {
    usage_error = absl::InvalidArgumentError("want: token FILE");
  }
  if (usage_error.ok() && grpc && (args.size() < 2 || args.size() > 3)) {
    usage_error = absl::InvalidArgumentError("want: grpc HOST:PORT [SERVICE]");
  }
  if (usage_error.ok() && http && args.size() != 2) {
    usage_error = absl::InvalidArgumentError("want: http URL");
  }
  if (usage_error.ok() && grpc) {
    usage_error = labgate::CheckHostPort("address", args[1], /*allow_zero=*/false);
  }
  if (usage_error.ok() && timeout.count() <= 0) {
    usage_error = absl::InvalidArgumentError("--timeout-ms must be positive");
  }
  auto credentials = labgate::MakeChannelCredentials(labgate::ClientTlsFromFlags());
  if (usage_error.ok() && !credentials.ok()) usage_error = credentials.status();

  if (labgate::CheckConfigRequested()) {
    std::vector<std::string> lines;
    if (usage_error.ok()) {
      lines.push_back((token ? "would make a token in " : "would check " + args[0] + " ") +
                      args[1]);
      if (grpc) lines.push_back(labgate::DescribeClientTls(labgate::ClientTlsFromFlags()));
    }
    return labgate::FinishCheckConfig("labgate-probe", lines, usage_error);
  }
  if (!usage_error.ok()) {
    std::cerr << "labgate-probe: " << usage_error.message() << "\nusage: " << kUsage << "\n";
    return 2;
  }
  if (token) {
    absl::StatusOr<bool> made = labgate::probe::EnsureTokenFile(args[1]);
    if (!made.ok()) {
      std::cerr << "labgate-probe: " << made.status().message() << "\n";
      return 1;
    }
    std::cerr << "labgate-probe: " << (*made ? "made a gateway token in " : "kept the token in ")
              << args[1] << "\n";
    return 0;
  }
  absl::Status result = grpc ? labgate::probe::CheckGrpcHealth(
                                   args[1], args.size() > 2 ? args[2] : "", *credentials, timeout)
                             : labgate::probe::CheckHttp(args[1], timeout);
  if (!result.ok()) {
    std::cerr << "labgate-probe: not healthy: " << result.message() << "\n";
    return 1;
  }
  return 0;
}
