#include "serial-service/limits/scpi_message.h"

#include <array>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace labgate::serial {
namespace {

// ASCII classes, inline: the parser runs on every line written to a limited instrument.
constexpr bool IsDigit(char c) { return c >= '0' && c <= '9'; }
constexpr bool IsAlpha(char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }
constexpr bool IsSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

absl::string_view Strip(absl::string_view text) {
  while (!text.empty() && IsSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsSpace(text.back())) text.remove_suffix(1);
  return text;
}

absl::Status Unreadable(absl::string_view command, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("cannot read '", command, "': ", why));
}

// Splits `text` at `separator` where it is outside quoted strings ('...' or "...", a doubled
// quote standing for itself). Block data (#) is refused: its bytes could hold anything.
using Parts = absl::InlinedVector<absl::string_view, 8>;

// The bytes SplitOutsideQuotes must look at outside quotes: quotes, '#', ';' and ','.
constexpr std::array<bool, 256> kMaySplit = [] {
  std::array<bool, 256> table{};
  for (const unsigned char c : {'"', '\'', '#', ';', ','}) table[c] = true;
  return table;
}();

// Appends the parts to `parts` (any vector of string_view).
template <typename Vector>
absl::Status SplitOutsideQuotes(absl::string_view text, char separator, Vector* parts) {
  size_t start = 0;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote == 0 && !kMaySplit[static_cast<unsigned char>(c)]) continue;  // most bytes
    if (quote != 0) {
      if (c == quote) quote = 0;  // a doubled quote closes and reopens: same effect
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#') {
      return Unreadable(text, "block data (#) is not read");
    } else if (c == separator) {
      parts->push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  if (quote != 0) return Unreadable(text, "a quoted string is not closed");
  parts->push_back(text.substr(start));
  return absl::OkStatus();
}

// A mnemonic is a letter, then letters, digits or '_'; trailing digits are its suffix.
// "SOUR1" -> {"SOUR", 1} into `node`; false (nothing said) when it is no mnemonic or its suffix
// is out of range. A bool, not a StatusOr: every node of every line comes through here, and the
// caller words the error.
bool ParseNode(absl::string_view text, ScpiNode* node) {
  if (text.empty() || !IsAlpha(text[0])) return false;
  size_t digits = text.size();
  while (digits > 0 && IsDigit(text[digits - 1])) --digits;
  for (size_t i = 0; i < digits; ++i) {
    const char c = text[i];
    if (!IsAlpha(c) && !IsDigit(c) && c != '_') return false;
  }
  node->mnemonic = text.substr(0, digits);
  node->suffix.reset();
  if (digits < text.size()) {
    if (text.size() - digits > 9) return false;  // beyond any int
    int suffix = 0;
    for (size_t i = digits; i < text.size(); ++i) suffix = suffix * 10 + (text[i] - '0');
    node->suffix = suffix;
  }
  return true;
}

absl::Status BadNode(absl::string_view text, absl::string_view command) {
  size_t digits = text.size();
  while (digits > 0 && IsDigit(text[digits - 1])) --digits;
  const bool long_suffix = digits > 0 && IsAlpha(text[0]) && text.size() - digits > 9;
  return Unreadable(command,
                    absl::StrCat("'", text, "' ",
                                 long_suffix ? "has a suffix out of range" : "is not a mnemonic"));
}

}  // namespace

absl::StatusOr<std::vector<ScpiCommand>> ParseScpiLine(absl::string_view line) {
  std::vector<ScpiCommand> commands;
  if (absl::Status parsed = ParseScpiLine(line, &commands); !parsed.ok()) return parsed;
  return commands;
}

absl::Status ParseScpiLine(absl::string_view line, std::vector<ScpiCommand>* commands_out) {
  std::vector<ScpiCommand>& commands = *commands_out;
  commands.clear();
  Parts units;
  if (absl::Status split = SplitOutsideQuotes(line, ';', &units); !split.ok()) return split;
  commands.reserve(units.size());
  ScpiNodes current_path;  // §6.2: where a header without a leading ':' starts
  for (size_t u = 0; u < units.size(); ++u) {
    const absl::string_view unit = Strip(units[u]);
    if (unit.empty()) {
      if (u + 1 == units.size() && u > 0) break;  // "VOLT 5;" ends with an empty unit
      return Unreadable(line, "an empty command");
    }
    // Built in place: a command's inline vectors are costly to move.
    ScpiCommand& command = commands.emplace_back();
    command.text = unit;
    size_t header_end = 0;
    while (header_end < unit.size() && !IsSpace(unit[header_end])) ++header_end;
    absl::string_view header = unit.substr(0, header_end);
    const absl::string_view rest = Strip(unit.substr(header_end));
    if (!header.empty() && header.back() == '?') {
      command.query = true;
      header.remove_suffix(1);
    }
    if (!header.empty() && header[0] == '*') {
      ScpiNode name;
      if (!ParseNode(header.substr(1), &name) || name.suffix.has_value()) {
        return Unreadable(unit, absl::StrCat("'", header, "' is not a common command"));
      }
      command.common = true;
      command.nodes.push_back(name);
    } else {
      const bool absolute = !header.empty() && header[0] == ':';
      if (absolute) header.remove_prefix(1);
      if (!absolute) command.nodes = current_path;
      size_t start = 0;
      for (size_t i = 0; i <= header.size(); ++i) {
        if (i < header.size() && header[i] != ':') continue;
        const absl::string_view text = header.substr(start, i - start);
        if (!ParseNode(text, &command.nodes.emplace_back())) return BadNode(text, unit);
        start = i + 1;
      }
      current_path.assign(command.nodes.begin(), command.nodes.end() - 1);
    }
    if (!rest.empty()) {
      if (absl::Status split = SplitOutsideQuotes(rest, ',', &command.parameters); !split.ok()) {
        return split;
      }
      for (absl::string_view& parameter : command.parameters) {
        parameter = Strip(parameter);
        if (parameter.empty()) return Unreadable(unit, "an empty parameter");
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace labgate::serial
