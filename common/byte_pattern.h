// Patterns that clients and operators supply (policy rules now; wait_for and send_expect
// next), compiled with RE2: matching takes time linear in the input whatever the pattern,
// and memory within a fixed budget, so no pattern or input can stall a port or overflow a
// stack as a backtracking engine can.
#pragma once

#include <re2/re2.h>

#include <cstddef>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace labgate {

// Longest pattern accepted, in bytes.
inline constexpr size_t kMaxPatternBytes = 4096;

enum class PatternInput {
  kBytes,  // each byte is one character (Latin-1): binary data matches byte for byte
  kUtf8,   // the input is text in UTF-8
};

using CompiledPattern = std::shared_ptr<const re2::RE2>;

// RE2 syntax. INVALID_ARGUMENT for an empty or too long pattern, or one RE2 refuses (its
// reason given), naming `what` (e.g. "ports[0].deny rule 'no-reset'") and the pattern.
absl::StatusOr<CompiledPattern> CompilePattern(absl::string_view pattern, PatternInput input,
                                               absl::string_view what);

// Whether `pattern` matches anywhere in `text`.
bool PatternFound(const re2::RE2& pattern, absl::string_view text);

}  // namespace labgate
