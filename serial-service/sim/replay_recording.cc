#include "serial-service/sim/replay_recording.h"

#include <algorithm>
#include <optional>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"

namespace labgate::serial {
namespace {

bool HasFeature(const session::v1::Message& message, absl::string_view tag) {
  if (!message.has_features()) return false;
  for (absl::string_view feature : absl::StrSplit(message.features(), ',')) {
    if (feature == tag) return true;
  }
  return false;
}

// When it happened on the wire, or else when it was stored.
absl::StatusOr<absl::Time> WhenOf(const session::v1::Message& message) {
  const std::string& text = message.has_occurred_at() && !message.occurred_at().empty()
                                ? message.occurred_at()
                                : message.created_at();
  absl::Time when;
  std::string why;
  if (!absl::ParseTime(absl::RFC3339_full, text, &when, &why)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "message ", message.message_id(), " has no time to replay at (\"", text, "\": ", why, ")"));
  }
  return when;
}

}  // namespace

absl::StatusOr<ReplayRecording> RecordingFromMessages(
    const std::string& session_id, const std::vector<session::v1::Message>& messages) {
  ReplayRecording recording;
  recording.session_id = session_id;
  std::optional<absl::Time> start;
  for (const session::v1::Message& message : messages) {
    const std::string direction = message.has_direction() ? message.direction() : "";
    const bool tx = direction == "tx";
    if (!tx && direction != "rx" && direction != "event") continue;
    absl::StatusOr<absl::Time> when = WhenOf(message);
    if (!when.ok()) return when.status();
    if (!start.has_value()) start = *when;
    if (direction == "event") continue;
    RecordedIo io;
    io.message_id = message.message_id();
    io.tx = tx;
    io.at = std::max(std::chrono::milliseconds(0),
                     std::chrono::milliseconds(absl::ToInt64Milliseconds(*when - *start)));
    if (HasFeature(message, "base64")) {
      if (!absl::Base64Unescape(message.content(), &io.bytes)) {
        return absl::FailedPreconditionError(absl::StrCat(
            "message ", message.message_id(), " is marked base64 but its content is not base64"));
      }
    } else {
      io.bytes = message.content();
    }
    ++(tx ? recording.tx_count : recording.rx_count);
    recording.records.push_back(std::move(io));
  }
  if (recording.records.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("session ", session_id,
                     " has no tx or rx records to replay (only a session a port recorded, "
                     "with session_id given at open_port, has them)"));
  }
  return recording;
}

}  // namespace labgate::serial
