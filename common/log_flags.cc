#include "common/log_flags.h"

#include <string>

#include "absl/flags/flag.h"
#include "common/log.h"

ABSL_FLAG(std::string, log_format, "text",
          "text, or json for one JSON object per line (logs go to stderr)");

namespace labgate {

absl::Status ApplyLogFormatFlag() {
  LogFormat format;
  const std::string value = absl::GetFlag(FLAGS_log_format);
  if (!ParseLogFormat(value, &format)) {
    return absl::InvalidArgumentError("--log-format must be text or json, not '" + value + "'");
  }
  SetLogFormat(format);
  return absl::OkStatus();
}

}  // namespace labgate
