#include "common/byte_pattern.h"

#include "absl/strings/str_cat.h"

namespace labgate {
namespace {

// What a refusal shows of a pattern: enough to find it, never the whole of a huge one.
std::string Shown(absl::string_view pattern) {
  constexpr size_t kShown = 80;
  if (pattern.size() <= kShown) return std::string(pattern);
  return absl::StrCat(pattern.substr(0, kShown), "... (", pattern.size(), " bytes)");
}

}  // namespace

absl::StatusOr<CompiledPattern> CompilePattern(absl::string_view pattern, PatternInput input,
                                               absl::string_view what) {
  if (pattern.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": the pattern is empty"));
  }
  if (pattern.size() > kMaxPatternBytes) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": pattern '", Shown(pattern), "' is ",
                                                   pattern.size(), " bytes; at most ",
                                                   kMaxPatternBytes, " are accepted"));
  }
  RE2::Options options;
  options.set_log_errors(false);  // the error goes back to whoever wrote the pattern
  options.set_encoding(input == PatternInput::kBytes ? RE2::Options::EncodingLatin1
                                                     : RE2::Options::EncodingUTF8);
  // A pattern whose program would need more than this is refused as too large.
  options.set_max_mem(int64_t{8} << 20);
  auto compiled =
      std::make_shared<const re2::RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
  if (!compiled->ok()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": pattern '", Shown(pattern),
                                                   "' is not valid RE2: ", compiled->error()));
  }
  return compiled;
}

bool PatternFound(const re2::RE2& pattern, absl::string_view text) {
  return RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), pattern);
}

}  // namespace labgate
