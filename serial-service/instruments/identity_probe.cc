#include "serial-service/instruments/identity_probe.h"

#include <algorithm>
#include <chrono>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "serial-service/instruments/instrument_locator.h"

namespace labgate::serial {

absl::StatusOr<std::string> ProbeBackend(SerialPort& port, const std::string& command,
                                         const std::string& terminator, int64_t timeout_ms,
                                         const std::function<bool(const std::string&)>& accept) {
  const std::string line = command + terminator;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  auto left_ms = [&deadline] {
    return std::max<int64_t>(0, std::chrono::duration_cast<std::chrono::milliseconds>(
                                    deadline - std::chrono::steady_clock::now())
                                    .count());
  };
  size_t sent = 0;
  while (sent < line.size()) {
    absl::StatusOr<size_t> wrote = port.Write(line.substr(sent), left_ms());
    if (!wrote.ok()) return wrote.status();
    sent += *wrote;
    if (*wrote == 0 && left_ms() == 0) {
      return absl::DeadlineExceededError("the probe could not be written in time");
    }
  }
  const std::string end = terminator.empty() ? "\n" : terminator;
  // Lines before the answer (a power-on banner) are read past, up to a few of them.
  std::string received;
  std::string last;
  int lines = 0;
  char buffer[256];
  while (left_ms() > 0 && received.size() <= 4096) {  // no identification is that long
    size_t at;
    while ((at = received.find(end)) != std::string::npos) {
      std::string line = TrimmedReply(received.substr(0, at));
      received.erase(0, at + end.size());
      if (line.empty()) continue;
      if (accept(line) || ++lines >= 8) return line;
      last = std::move(line);
    }
    absl::StatusOr<size_t> got = port.Read(buffer, sizeof(buffer), left_ms());
    if (!got.ok()) return got.status();
    received.append(buffer, *got);
  }
  if (!last.empty()) return last;
  if (!received.empty()) return TrimmedReply(std::move(received));
  return absl::DeadlineExceededError(
      absl::StrCat("no answer to '", command, "' within ", timeout_ms, " ms"));
}

std::string TrimmedReply(std::string reply) {
  absl::StripTrailingAsciiWhitespace(&reply);
  return reply;
}

absl::Status CheckIdentity(const NamedInstrument& named, const InstrumentProfile& profile,
                           const std::string& reply, const std::string& path) {
  if (!profile.probe.has_value()) return absl::OkStatus();
  const InstrumentProfile::Probe& probe = *profile.probe;
  const bool wants_serial = named.match.kind == InstrumentMatch::Kind::kIdnSerial;
  std::string expected = absl::StrCat("a ", profile.model, " (a reply to '", probe.command,
                                      "' matching /", probe.reply, "/");
  if (wants_serial) absl::StrAppend(&expected, " with serial ", named.match.value);
  expected += ")";
  const std::string answered =
      reply.empty() ? std::string("nothing") : absl::StrCat("'", reply, "'");
  const bool matched = ProbeReplyMatches(profile, reply);
  const std::optional<std::string> serial = SerialInProbeReply(profile, reply);
  if (matched && (!wants_serial || serial == named.match.value)) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat("the instrument at ", path, " is not ",
                                                    named.name, ": expected ", expected,
                                                    ", but it answered ", answered));
}

}  // namespace labgate::serial
