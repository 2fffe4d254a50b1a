// SCPI program messages as an instrument's parser reads them: one line holds commands separated
// by ';', each a header (a path of mnemonics, or a common command such as *RST) and parameters
// separated by ','. Headers are resolved to full paths by the rules of SCPI-99 Vol. 1 §6.2:
// a command that does not start with ':' continues from the path of the command before it,
// less that command's last node; a leading ':' starts again at the root; common commands
// leave the path as it was. Mnemonics are compared without regard to case. Everything parsed
// is a view into the line: keep the line while the commands are used.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"

namespace labgate::serial {

// Whether two mnemonics are the same without regard to case. Mnemonics hold letters, digits and
// '_' only, so setting bit 5 folds case without mixing other characters; inline, as every
// written line's headers are compared with every limited header.
inline bool SameMnemonic(absl::string_view a, absl::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if ((a[i] | 0x20) != (b[i] | 0x20)) return false;
  }
  return true;
}

// One node of a header: "SOUR1" is {"SOUR", 1}; "VOLT" is {"VOLT", nullopt}. The mnemonic is a
// view into the parsed line, as written: compare it without regard to case.
struct ScpiNode {
  absl::string_view mnemonic;
  std::optional<int> suffix;
  bool operator==(const ScpiNode& other) const {
    return SameMnemonic(mnemonic, other.mnemonic) && suffix == other.suffix;
  }
};

// Headers are short: a path and a command's parameters stay off the heap (every written line
// is read, so this is on the write path).
using ScpiNodes = absl::InlinedVector<ScpiNode, 8>;

struct ScpiCommand {
  // User-provided on purpose: a defaulted one would have emplace_back() zero the whole command
  // (its inline vectors' storage, some 300 bytes) before constructing it.
  ScpiCommand() {}      // NOLINT(modernize-use-equals-default)
  bool common = false;  // *IDN?, *RST: the one node holds the name without '*'
  ScpiNodes nodes;      // the full path, resolved (§6.2)
  bool query = false;
  // Views into the parsed line, valid while it is: the parameters as written (surrounding
  // spaces removed), and the command as written, for messages.
  absl::InlinedVector<absl::string_view, 4> parameters;
  absl::string_view text;
};

// Parses one line (without its terminator). INVALID_ARGUMENT says what could not be read and
// where: an empty command between two ';', a bad mnemonic, an unclosed quote, block data.
absl::StatusOr<std::vector<ScpiCommand>> ParseScpiLine(absl::string_view line);
// The same into `commands` (cleared first), so a caller that reads line after line keeps one
// vector's storage rather than allocating one per line.
absl::Status ParseScpiLine(absl::string_view line, std::vector<ScpiCommand>* commands_out);

}  // namespace labgate::serial
