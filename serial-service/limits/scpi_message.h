// SCPI program messages as an instrument's parser reads them: one line holds commands separated
// by ';', each a header (a path of mnemonics, or a common command such as *RST) and parameters
// separated by ','. Headers are resolved to full paths by the rules of SCPI-99 Vol. 1 §6.2:
// a command that does not start with ':' continues from the path of the command before it,
// less that command's last node; a leading ':' starts again at the root; common commands
// leave the path as it was. Mnemonics are compared without regard to case (upper-cased here).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace labgate::serial {

// One node of a header: "SOUR1" is {"SOUR", 1}; "VOLT" is {"VOLT", nullopt}.
struct ScpiNode {
  std::string mnemonic;  // upper case, without its numeric suffix
  std::optional<int> suffix;
  bool operator==(const ScpiNode& other) const {
    return mnemonic == other.mnemonic && suffix == other.suffix;
  }
};

struct ScpiCommand {
  bool common = false;          // *IDN?, *RST: the one node holds the name without '*'
  std::vector<ScpiNode> nodes;  // the full path, resolved (§6.2)
  bool query = false;
  std::vector<std::string> parameters;  // as written, surrounding spaces removed
  std::string text;                     // the command as written, for messages
};

// Parses one line (without its terminator). INVALID_ARGUMENT says what could not be read and
// where: an empty command between two ';', a bad mnemonic, an unclosed quote, block data.
absl::StatusOr<std::vector<ScpiCommand>> ParseScpiLine(absl::string_view line);

}  // namespace labgate::serial
