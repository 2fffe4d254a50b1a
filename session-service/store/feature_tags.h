// Feature tags are opaque labels a client attaches to a message ("scpi, idn query").
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace labgate::session {

// Splits on commas and/or whitespace, trims, lower-cases (ASCII), drops empty tags and
// de-duplicates keeping the first occurrence's position.
std::vector<std::string> NormaliseFeatureTags(std::string_view text);

// The stored form: normalised tags joined by ",".
std::string JoinFeatureTags(const std::vector<std::string>& tags);

}  // namespace labgate::session
