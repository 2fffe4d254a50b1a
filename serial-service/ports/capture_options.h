// How a port keeps what arrives while nobody reads (labgate-serial --capture-buffer-bytes,
// --record-coalesce-ms).
#pragma once

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace labgate::serial {

// How a port keeps what arrives while nobody reads.
struct CaptureOptions {
  // Received bytes kept unread; beyond it the oldest are dropped (and counted).
  size_t buffer_bytes = 1 << 20;
  // A bound port records received bytes at most this often: what arrives meanwhile is held
  // and recorded as one rx record stamped with its first byte's arrival. A write, an
  // event, or a read that returns the bytes records what is held first.
  int64_t record_coalesce_ms = 20;
};

// INVALID_ARGUMENT naming the flag when a value is out of range.
inline absl::Status ValidateCaptureOptions(const CaptureOptions& options) {
  if (options.buffer_bytes < 64 || options.buffer_bytes > (size_t{1} << 30)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--capture-buffer-bytes must be 64 to 1073741824 (1 GiB), not ", options.buffer_bytes));
  }
  if (options.record_coalesce_ms < 0 || options.record_coalesce_ms > 10000) {
    return absl::InvalidArgumentError(
        absl::StrCat("--record-coalesce-ms must be 0 to 10000, not ", options.record_coalesce_ms));
  }
  return absl::OkStatus();
}

}  // namespace labgate::serial
