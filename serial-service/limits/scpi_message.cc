#include "serial-service/limits/scpi_message.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace labgate::serial {
namespace {

absl::Status Unreadable(absl::string_view command, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("cannot read '", command, "': ", why));
}

// Splits `text` at `separator` where it is outside quoted strings ('...' or "...", a doubled
// quote standing for itself). Block data (#) is refused: its bytes could hold anything.
using Parts = absl::InlinedVector<absl::string_view, 8>;

absl::StatusOr<Parts> SplitOutsideQuotes(absl::string_view text, char separator) {
  Parts parts;
  size_t start = 0;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote != 0) {
      if (c == quote) quote = 0;  // a doubled quote closes and reopens: same effect
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#') {
      return Unreadable(text, "block data (#) is not read");
    } else if (c == separator) {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  if (quote != 0) return Unreadable(text, "a quoted string is not closed");
  parts.push_back(text.substr(start));
  return parts;
}

// "SOUR1" -> {"SOUR", 1}: a letter, then letters, digits or '_', the trailing digits a suffix.
absl::StatusOr<ScpiNode> ParseNode(absl::string_view text, absl::string_view command) {
  if (text.empty() || !absl::ascii_isalpha(static_cast<unsigned char>(text[0]))) {
    return Unreadable(command, absl::StrCat("'", text, "' is not a mnemonic"));
  }
  size_t digits = text.size();
  while (digits > 0 && absl::ascii_isdigit(static_cast<unsigned char>(text[digits - 1]))) {
    --digits;
  }
  for (size_t i = 0; i < digits; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (!absl::ascii_isalnum(c) && c != '_') {
      return Unreadable(command, absl::StrCat("'", text, "' is not a mnemonic"));
    }
  }
  ScpiNode node;
  node.mnemonic = text.substr(0, digits);
  if (digits < text.size()) {
    int suffix = 0;
    if (!absl::SimpleAtoi(text.substr(digits), &suffix)) {
      return Unreadable(command, absl::StrCat("'", text, "' has a suffix out of range"));
    }
    node.suffix = suffix;
  }
  return node;
}

}  // namespace

absl::StatusOr<std::vector<ScpiCommand>> ParseScpiLine(absl::string_view line) {
  absl::StatusOr<Parts> units = SplitOutsideQuotes(line, ';');
  if (!units.ok()) return units.status();
  std::vector<ScpiCommand> commands;
  commands.reserve(units->size());
  ScpiNodes current_path;  // §6.2: where a header without a leading ':' starts
  for (size_t u = 0; u < units->size(); ++u) {
    const absl::string_view unit = absl::StripAsciiWhitespace((*units)[u]);
    if (unit.empty()) {
      if (u + 1 == units->size() && u > 0) break;  // "VOLT 5;" ends with an empty unit
      return Unreadable(line, "an empty command");
    }
    ScpiCommand command;
    command.text = unit;
    size_t header_end = 0;
    while (header_end < unit.size() &&
           !absl::ascii_isspace(static_cast<unsigned char>(unit[header_end]))) {
      ++header_end;
    }
    absl::string_view header = unit.substr(0, header_end);
    const absl::string_view rest = absl::StripAsciiWhitespace(unit.substr(header_end));
    if (!header.empty() && header.back() == '?') {
      command.query = true;
      header.remove_suffix(1);
    }
    if (!header.empty() && header[0] == '*') {
      absl::StatusOr<ScpiNode> name = ParseNode(header.substr(1), unit);
      if (!name.ok() || name->suffix.has_value()) {
        return Unreadable(unit, absl::StrCat("'", header, "' is not a common command"));
      }
      command.common = true;
      command.nodes.push_back(*std::move(name));
    } else {
      const bool absolute = !header.empty() && header[0] == ':';
      if (absolute) header.remove_prefix(1);
      if (!absolute) command.nodes = current_path;
      size_t start = 0;
      for (size_t i = 0; i <= header.size(); ++i) {
        if (i < header.size() && header[i] != ':') continue;
        absl::StatusOr<ScpiNode> node = ParseNode(header.substr(start, i - start), unit);
        if (!node.ok()) return node.status();
        command.nodes.push_back(*std::move(node));
        start = i + 1;
      }
      current_path.assign(command.nodes.begin(), command.nodes.end() - 1);
    }
    if (!rest.empty()) {
      absl::StatusOr<Parts> parameters = SplitOutsideQuotes(rest, ',');
      if (!parameters.ok()) return parameters.status();
      for (absl::string_view parameter : *parameters) {
        parameter = absl::StripAsciiWhitespace(parameter);
        if (parameter.empty()) return Unreadable(unit, "an empty parameter");
        command.parameters.push_back(parameter);
      }
    }
    commands.push_back(std::move(command));
  }
  return commands;
}

}  // namespace labgate::serial
