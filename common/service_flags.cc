#include "common/service_flags.h"

#include "absl/strings/str_cat.h"
#include "common/check_config.h"
#include "common/log.h"
#include "common/log_flags.h"
#include "common/metrics/metrics_flags.h"
#include "common/tls_flags.h"

namespace labgate {

ServiceConfig CheckServiceFlags(const std::string& listen, const std::string& log_level,
                                const std::vector<std::string>& positional) {
  ServiceConfig config;
  LogLevel level;
  if (!positional.empty()) {
    config.status =
        absl::InvalidArgumentError(absl::StrCat("unexpected argument '", positional.front(), "'"));
  } else if (!ParseLogLevel(log_level, &level)) {
    config.status = absl::InvalidArgumentError(absl::StrCat(
        "--log-level must be debug, info, warning, error or off, not '", log_level, "'"));
  } else if (absl::Status format = ApplyLogFormatFlag(); !format.ok()) {
    config.status = format;
  } else {
    SetLogLevel(level);
    config.status = CheckHostPort("--listen", listen, /*allow_zero=*/true);
    if (config.status.ok()) config.status = metrics::CheckMetricsListenFlag();
  }
  if (!config.status.ok()) return config;
  ServerTlsFiles tls = ServerTlsFromFlags();
  auto credentials = MakeServerCredentials(tls);
  if (!credentials.ok()) {
    config.status = credentials.status();
    return config;
  }
  config.credentials = *credentials;
  config.lines.push_back(absl::StrCat("gRPC on ", listen, ", ", DescribeServerTls(tls)));
  if (const std::string metrics = metrics::MetricsListenFlag(); !metrics.empty()) {
    config.lines.push_back(absl::StrCat("metrics on http://", metrics, "/metrics"));
  }
  return config;
}

}  // namespace labgate
