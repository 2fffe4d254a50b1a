// A recorded session turned into what replay:// plays back: its tx and rx records in message
// order, their bytes decoded (base64 records, for bytes that were not UTF-8, back to bytes),
// each with its time since the recording's first record. Events are not played.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "labgate/session/v1/session.pb.h"

namespace labgate::serial {

struct RecordedIo {
  int64_t message_id = 0;
  bool tx = false;  // false: rx
  std::string bytes;
  std::chrono::milliseconds at{0};  // since the recording's first record (events included)
};

struct ReplayRecording {
  std::string session_id;
  std::vector<RecordedIo> records;
  int64_t tx_count = 0;
  int64_t rx_count = 0;
};

// The most messages a replay loads: a session longer than this is refused, not cut.
inline constexpr int64_t kMaxReplayMessages = 1000000;

// FAILED_PRECONDITION when the session has no tx and no rx to play, or a record cannot be read
// (a time that is no RFC 3339 time, base64 that is not base64), naming the message.
absl::StatusOr<ReplayRecording> RecordingFromMessages(
    const std::string& session_id, const std::vector<session::v1::Message>& messages);

}  // namespace labgate::serial
