// --log-format, shared by every labgate binary (each keeps its own --log-level default).
#pragma once

#include "absl/status/status.h"

namespace labgate {

// Sets the log format from --log-format ("text", the default, or "json").
absl::Status ApplyLogFormatFlag();

}  // namespace labgate
