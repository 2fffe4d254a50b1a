#include "serial-service/backends/serial_port.h"

#include <chrono>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "serial-service/backends/libserialport_backend.h"
#include "serial-service/backends/loopback_port.h"
#include "serial-service/backends/tty_port.h"
#include "serial-service/ports/clock.h"

namespace labgate::serial {

bool IsLoopbackName(const std::string& port_name) { return absl::StartsWith(port_name, "loop://"); }
bool IsSimName(const std::string& port_name) { return absl::StartsWith(port_name, "sim://"); }
bool IsReplayName(const std::string& port_name) {
  return absl::StartsWith(port_name, "replay://");
}

absl::Status SerialPort::NoControlLines(const std::string& what, const std::string& reason) const {
  return absl::FailedPreconditionError(absl::StrCat("the ", backend_name(), " backend cannot ",
                                                    what, reason.empty() ? "" : ": ", reason));
}

absl::StatusOr<ModemSignals> SerialPort::GetSignals() {
  return NoControlLines("read the modem lines");
}

absl::Status SerialPort::SetSignals(std::optional<bool> /*dtr*/, std::optional<bool> /*rts*/) {
  return NoControlLines("drive DTR/RTS");
}

absl::Status SerialPort::SendBreak(int64_t /*ms*/) { return NoControlLines("send a break"); }

std::unique_ptr<SerialPort> DefaultPortFactory(const std::string& port_name) {
  if (IsLoopbackName(port_name)) return std::make_unique<LoopbackPort>();
  return std::make_unique<TtyPort>(port_name);
}

namespace {
class SteadyClock : public Clock {
 public:
  int64_t NowMs() override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
};
}  // namespace

Clock* SystemClock() {
  static SteadyClock* clock = new SteadyClock();
  return clock;
}

}  // namespace labgate::serial
