// Where the first of several patterns matches in captured bytes: wait_for's search. The
// earliest match wins, whichever pattern it is; on a tie, the pattern given first.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "common/byte_pattern.h"

namespace labgate::serial {

struct PatternMatch {
  int pattern_index = -1;
  size_t begin = 0;  // offsets into the searched text
  size_t end = 0;
  std::vector<std::string> groups;  // the capturing groups; "" for one that took no part
};

std::optional<PatternMatch> FindEarliest(const std::vector<CompiledPattern>& patterns,
                                         absl::string_view text);

}  // namespace labgate::serial
