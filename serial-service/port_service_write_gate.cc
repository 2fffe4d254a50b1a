// The write gate, on each port's worker as a write starts, in the order the device gets the
// writes. CheckWrite has judged the write when it was called; here the reservations are asked
// again, the instrument's limits judge it against the values the writes before it set, and a
// write that joins the device's unfinished line is judged on the line the device will read.
#include "absl/strings/str_cat.h"
#include "serial-service/limits/line_ends.h"
#include "serial-service/port_service.h"
#include "serial-service/ports/data_encoding.h"
#include "serial-service/serial_metrics.h"

namespace labgate::serial {
absl::Status PortService::CheckAtWrite(ManagedPort& port, const WrittenLine& line,
                                       absl::string_view bytes, std::function<void()>* once_sent) {
  // A reservation granted to someone else since the call began (a long send_expect's later
  // sends) stops what is still to go out.
  if (absl::Status reserved = CheckReserved(port.owner(), port); !reserved.ok()) {
    port.RecordEvent(absl::StrCat("write refused: ", reserved.message()));
    return reserved;
  }
  if (absl::Status ends = CheckLineEnds(port, bytes); !ends.ok()) {
    SerialMetrics::Get().policy_refusals.With({"limit"}).Increment();
    port.RecordEvent(absl::StrCat("write refused by the instrument's limits: ", ends.message(),
                                  " (", ShownData(std::string(bytes)), ")"));
    return ends;
  }
  if (!line.empty()) {
    if (absl::Status joined = CheckJoinedLine(port, line, bytes); !joined.ok()) return joined;
  }
  if (port.instrument().empty()) return absl::OkStatus();
  InstrumentRegistry::Limits limits = instruments_.LimitsOf(port.instrument());
  if (limits.limits == nullptr) return absl::OkStatus();
  LimitVerdict verdict;
  {
    absl::MutexLock lock(&limits.state->mu);
    verdict = limits.limits->Check(bytes, limits.state->state, std::chrono::steady_clock::now(),
                                   port.instrument());
  }
  if (!verdict.status.ok()) {
    SerialMetrics::Get().policy_refusals.With({"limit"}).Increment();
    port.RecordEvent(
        absl::StrCat("write refused by the instrument's limits: ", verdict.status.message(), " (",
                     ShownData(std::string(bytes)), ")"));
    return verdict.status;
  }
  if (!verdict.settings.empty()) {
    *once_sent = [state = std::move(limits.state), settings = std::move(verdict.settings)] {
      absl::MutexLock lock(&state->mu);
      QuantityLimits::Commit(settings, &state->state, std::chrono::steady_clock::now());
    };
  }
  return absl::OkStatus();
}

absl::Status PortService::CheckJoinedLine(ManagedPort& port, const WrittenLine& line,
                                          absl::string_view bytes) {
  const absl::string_view head = WrittenLine::Head(bytes);
  if (head.empty()) return absl::OkStatus();  // it ends the line as it was, judged when written
  absl::Status joined = CheckJoinedLimits(port, line, bytes);
  const char* refused_by = "limit";
  if (joined.ok()) {
    joined = policy_.CheckJoinedLine(port.owner(), PolicyName(port), line.text(), head);
    refused_by = "write";
  }
  if (!joined.ok()) {
    SerialMetrics::Get().policy_refusals.With({refused_by}).Increment();
    port.RecordEvent(absl::StrCat("write refused: ", joined.message(), " (",
                                  ShownData(std::string(bytes)), ")"));
  }
  return joined;
}

absl::Status PortService::CheckJoinedLimits(const ManagedPort& port, const WrittenLine& line,
                                            absl::string_view bytes) {
  InstrumentRegistry::Limits limits = instruments_.LimitsOf(port.instrument());
  if (limits.limits == nullptr || limits.limits->spec().rules.empty()) return absl::OkStatus();
  const QuantityLimits& rules = *limits.limits;
  const std::string unfinished = ShownData(line.text());
  // SCPI commands end at a terminator, so a whole line can be asked for. (A device that takes
  // commands without one keeps its last pieces in view instead.)
  if (rules.SpeaksScpi() && (line.truncated() || line.WouldOverflow(bytes))) {
    return absl::PermissionDeniedError(absl::StrCat(
        "cannot verify a line on ", port.instrument(), " written in more than ",
        WrittenLine::kMaxPieces, " writes or ", WrittenLine::kMaxBytes,
        " bytes; end the unfinished line '", unfinished, "' first (send a line terminator)"));
  }
  return rules.CheckJoin(line.text(), line.starts(), WrittenLine::Head(bytes), port.instrument());
}

absl::Status PortService::CheckLineEnds(const ManagedPort& port, absl::string_view bytes) {
  if (port.instrument().empty()) return absl::OkStatus();
  if (instruments_.LimitsOf(port.instrument()).limits == nullptr) return absl::OkStatus();
  return serial::CheckLineEnds(bytes, LineEndOf(port), port.instrument());
}

std::string PortService::LineEndOf(const ManagedPort& port) const {
  std::string terminator = port.terminator();
  if (!terminator.empty()) return terminator;
  std::shared_ptr<const InstrumentProfile> profile = ProfileOf(port);
  return profile != nullptr ? profile->settings.terminator.value_or("") : std::string();
}

}  // namespace labgate::serial
