#include "serial-service/ports/idle_close.h"

#include "absl/strings/str_cat.h"

namespace labgate::serial {

std::optional<IdleClose> IdleClose::Due(int64_t idle_disconnect_ms, int64_t last_activity_ms,
                                        int64_t now_ms) {
  const int64_t idle_for = now_ms - last_activity_ms;
  if (idle_disconnect_ms <= 0 || idle_for < idle_disconnect_ms) return std::nullopt;
  return IdleClose{idle_disconnect_ms, idle_for};
}

PortEventRecord IdleClose::Event(const std::string& port_name, int64_t close_count) const {
  PortEventRecord event;
  event.type = PortEventRecord::Type::kAutoClose;
  event.port_name = port_name;
  event.reason = "idle_timeout";
  event.idle_ms = idle_disconnect_ms;
  event.idle_close_count = close_count;
  return event;
}

std::string IdleClose::TranscriptLine() const {
  return absl::StrCat("auto_close: idle for ", idle_for_ms, " ms (idle_disconnect_ms ",
                      idle_disconnect_ms, ")");
}

}  // namespace labgate::serial
