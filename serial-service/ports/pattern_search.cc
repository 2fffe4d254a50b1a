#include "serial-service/ports/pattern_search.h"

namespace labgate::serial {

std::optional<PatternMatch> FindEarliest(const std::vector<CompiledPattern>& patterns,
                                         absl::string_view text) {
  std::optional<PatternMatch> best;
  std::vector<re2::StringPiece> found;
  const re2::StringPiece input(text.data(), text.size());
  for (size_t i = 0; i < patterns.size(); ++i) {
    const re2::RE2& pattern = *patterns[i];
    // The whole match and every group.
    const int groups = pattern.NumberOfCapturingGroups();
    found.assign(static_cast<size_t>(groups) + 1, re2::StringPiece());
    if (!pattern.Match(input, 0, input.size(), re2::RE2::UNANCHORED, found.data(),
                       static_cast<int>(found.size()))) {
      continue;
    }
    const size_t begin = static_cast<size_t>(found[0].data() - text.data());
    if (best.has_value() && begin >= best->begin) continue;
    PatternMatch match;
    match.pattern_index = static_cast<int>(i);
    match.begin = begin;
    match.end = begin + found[0].size();
    for (int g = 1; g <= groups; ++g) {
      const re2::StringPiece& group = found[static_cast<size_t>(g)];
      match.groups.emplace_back(group.data() == nullptr ? ""
                                                        : std::string(group.data(), group.size()));
    }
    best = std::move(match);
  }
  return best;
}

}  // namespace labgate::serial
