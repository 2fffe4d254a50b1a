// ManagedPort's control lines: DTR, RTS and break driven, and the modem lines read, on the
// port's worker, so they take their place between writes and reads as a person at a
// terminal would expect.
#include <chrono>
#include <thread>

#include "absl/strings/str_cat.h"
#include "serial-service/ports/managed_port.h"

namespace labgate::serial {
namespace {

const char* Level(bool high) { return high ? "high" : "low"; }

}  // namespace

absl::StatusOr<ModemSignals> ManagedPort::ChangeLines(const std::function<absl::Status()>& change,
                                                      const std::string& event) {
  if (absl::Status usable = CheckUsable(); !usable.ok()) return usable;
  if (absl::Status changed = change(); !changed.ok()) {
    if (absl::IsUnavailable(changed)) EnterError(changed);
    return changed;
  }
  if (!event.empty()) Record("event", event);
  absl::StatusOr<ModemSignals> lines = backend_->GetSignals();
  if (absl::IsUnavailable(lines.status())) EnterError(lines.status());
  return lines;
}

void ManagedPort::GetSignals(std::function<void(absl::StatusOr<ModemSignals>)> done) {
  worker_.Post([self = shared_from_this(), done = std::move(done)] {
    self->worker_.AssertInPlace();
    done(self->ChangeLines([] { return absl::OkStatus(); }, ""));
  });
}

void ManagedPort::SetSignals(std::optional<bool> dtr, std::optional<bool> rts,
                             std::function<void(absl::StatusOr<ModemSignals>)> done) {
  worker_.Post([self = shared_from_this(), dtr, rts, done = std::move(done)] {
    self->worker_.AssertInPlace();
    done(self->DoSetLines(dtr, rts));
  });
}

absl::StatusOr<ModemSignals> ManagedPort::DoSetLines(std::optional<bool> dtr,
                                                     std::optional<bool> rts) {
  std::string event;
  if (dtr.has_value()) event = absl::StrCat("DTR ", Level(*dtr));
  if (rts.has_value()) absl::StrAppend(&event, event.empty() ? "" : ", ", "RTS ", Level(*rts));
  SerialPort& backend = *backend_;  // read while the worker's place is held
  return ChangeLines([&] { return backend.SetSignals(dtr, rts); }, event);
}

void ManagedPort::PulseSignal(bool dtr, bool level, int64_t ms,
                              std::function<void(absl::StatusOr<ModemSignals>)> done) {
  worker_.Post([self = shared_from_this(), dtr, level, ms, done = std::move(done)] {
    self->worker_.AssertInPlace();
    done(self->DoPulse(dtr, level, ms));
  });
}

absl::StatusOr<ModemSignals> ManagedPort::DoPulse(bool dtr, bool level, int64_t ms) {
  SerialPort& backend = *backend_;
  auto pulse = [&]() -> absl::Status {
    absl::StatusOr<ModemSignals> before = backend.GetSignals();
    if (!before.ok()) return before.status();
    const bool was = dtr ? before->dtr : before->rts;
    auto set = [&](bool to) {
      return dtr ? backend.SetSignals(to, std::nullopt) : backend.SetSignals(std::nullopt, to);
    };
    if (absl::Status status = set(level); !status.ok()) return status;
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    return set(was);
  };
  return ChangeLines(pulse, absl::StrCat(dtr ? "DTR " : "RTS ", Level(level), " for ", ms, " ms"));
}

void ManagedPort::SendBreak(int64_t ms, std::function<void(absl::StatusOr<ModemSignals>)> done) {
  worker_.Post([self = shared_from_this(), ms, done = std::move(done)] {
    self->worker_.AssertInPlace();
    SerialPort& backend = *self->backend_;  // read while the worker's place is held
    done(self->ChangeLines([&] { return backend.SendBreak(ms); },
                           absl::StrCat("break for ", ms, " ms")));
  });
}

}  // namespace labgate::serial
