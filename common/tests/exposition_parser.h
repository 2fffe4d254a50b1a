// A strict reader of the Prometheus text exposition (format 0.0.4), for tests: it accepts
// only what the format allows and what labgate promises on top (every family has HELP and
// TYPE before its samples, no series twice, histogram buckets cumulative and ending in +Inf
// equal to _count). Any breach is an error naming the line.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace labgate::metrics::testing {

struct Sample {
  std::string name;  // as written (with _bucket, _sum, _count for histograms)
  std::map<std::string, std::string> labels;
  double value = 0;
};

struct ParsedFamily {
  std::string help;
  std::string type;
  std::vector<Sample> samples;
};

using Exposition = std::map<std::string, ParsedFamily>;

absl::StatusOr<Exposition> ParseExposition(const std::string& text);

// The value of the sample `name` with exactly `labels`; NaN when absent.
double ValueOf(const Exposition& exposition, const std::string& name,
               const std::map<std::string, std::string>& labels = {});

}  // namespace labgate::metrics::testing
