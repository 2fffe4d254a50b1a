#include "serial-service/instruments/reply_readings.h"

#include <re2/re2.h>

#include <string>

#include "serial-service/limits/scpi_quantity.h"

namespace labgate::serial {

std::vector<ReplyReading> ReadingsIn(const InstrumentProfile& profile, absl::string_view command,
                                     absl::string_view reply) {
  std::vector<ReplyReading> readings;
  for (const InstrumentProfile::Reading& reading : profile.readings) {
    if (reading.command_compiled != nullptr &&
        !re2::RE2::PartialMatch(re2::StringPiece(command.data(), command.size()),
                                *reading.command_compiled)) {
      continue;
    }
    const re2::RE2& pattern = *reading.compiled;
    const auto& groups = pattern.NamedCapturingGroups();
    auto group = groups.find("value");
    if (group == groups.end()) continue;  // the profile's parser requires it
    std::vector<re2::StringPiece> found(static_cast<size_t>(pattern.NumberOfCapturingGroups()) + 1);
    if (!pattern.Match(re2::StringPiece(reply.data(), reply.size()), 0, reply.size(),
                       re2::RE2::UNANCHORED, found.data(), static_cast<int>(found.size()))) {
      continue;
    }
    const re2::StringPiece text = found[static_cast<size_t>(group->second)];
    absl::StatusOr<double> value =
        ParseQuantity(absl::string_view(text.data(), text.size()), reading.unit);
    if (!value.ok()) continue;
    readings.push_back({reading.name, *value, reading.unit});
  }
  return readings;
}

}  // namespace labgate::serial
