// Idle auto-close: a port with idle_disconnect_ms set that has seen no I/O for that long is
// closed by the next read that finds it so, instead of reading (ManagedPort::DoRead).
// This decides when, and words what the close reports; the port does the closing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "serial-service/ports/event_hub.h"

namespace labgate::serial {

struct IdleClose {
  int64_t idle_disconnect_ms = 0;  // the setting the port went past
  int64_t idle_for_ms = 0;         // how long it had seen no I/O

  // The auto-close due for a read at `now_ms` on a port last active at `last_activity_ms`:
  // none while the port is idle for less than `idle_disconnect_ms`, or when that is 0
  // (never).
  static std::optional<IdleClose> Due(int64_t idle_disconnect_ms, int64_t last_activity_ms,
                                      int64_t now_ms);

  // The AUTO_CLOSE event of `port_name`; `close_count` counts this close too.
  PortEventRecord Event(const std::string& port_name, int64_t close_count) const;
  // The event line of the port's session transcript.
  std::string TranscriptLine() const;
};

}  // namespace labgate::serial
