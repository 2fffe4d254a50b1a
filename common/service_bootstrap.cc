#include "common/service_bootstrap.h"

#include "absl/strings/str_cat.h"
#include "common/cli.h"
#include "common/log.h"
#include "common/port_file.h"
#include "common/reload_signal.h"
#include "common/service_host.h"

ABSL_FLAG(std::string, log_level, "info", "debug, info, warning, error or off (logs go to stderr)");
ABSL_FLAG(std::string, port_file, "",
          "Write the bound port number to this file once serving (for --listen HOST:0)");

namespace labgate {

std::string ServiceUsage(const std::string& program, const std::string& own_flags) {
  return absl::StrCat(program, " [--listen HOST:PORT] [--port-file FILE] ", own_flags,
                      own_flags.empty() ? "" : " ",
                      "[--tls-cert FILE --tls-key FILE [--tls-client-ca FILE]] "
                      "[--metrics-listen HOST:PORT] [--log-level LEVEL] [--log-format json] "
                      "[--check-config]");
}

ServiceConfig BeginService(int argc, char** argv, const std::string& program,
                           const std::string& own_flags, const absl::Flag<std::string>& listen,
                           bool reload_on_hup) {
  BlockShutdownSignals();
  if (reload_on_hup) BlockReloadSignal();
  SkipMutexDeadlockDetection();
  const std::vector<std::string> positional =
      ParseFlags(argc, argv, ServiceUsage(program, own_flags));
  ServiceConfig config =
      CheckServiceFlags(absl::GetFlag(listen), absl::GetFlag(FLAGS_log_level), positional);
  config.listen = absl::GetFlag(listen);
  return config;
}

std::string BoundAddress(const std::string& listen, int port) {
  const size_t colon = listen.rfind(':');
  return absl::StrCat(colon == std::string::npos ? listen : listen.substr(0, colon), ":", port);
}

absl::Status AnnounceServing(const std::string& program, const std::string& listen, int port) {
  if (absl::Status written = WritePortFile(absl::GetFlag(FLAGS_port_file), port); !written.ok()) {
    return written;
  }
  LG_LOG(kInfo) << program << " listening on " << BoundAddress(listen, port);
  return absl::OkStatus();
}

}  // namespace labgate
