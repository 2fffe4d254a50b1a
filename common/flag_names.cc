#include "common/flag_names.h"

#include <optional>

namespace labgate {
namespace {

std::string Replaced(std::string_view text, char from, char to) {
  std::string out(text);
  for (char& c : out) c = c == from ? to : c;
  return out;
}

// The name part of a flag argument ("--data-dir=x" -> "data-dir"), or nullopt for a value.
std::optional<std::string_view> NameOf(std::string_view arg) {
  if (arg.size() < 2 || arg[0] != '-') return std::nullopt;
  arg.remove_prefix(arg[1] == '-' ? 2 : 1);
  return arg.substr(0, arg.find('='));
}

bool SameFlag(std::string_view written, std::string_view name) {
  return UnderscoredFlagName(written) == UnderscoredFlagName(name);
}

}  // namespace

std::string UnderscoredFlagName(std::string_view name) { return Replaced(name, '-', '_'); }
std::string HyphenatedFlagName(std::string_view name) { return Replaced(name, '_', '-'); }

HyphenatedFlags::HyphenatedFlags(int argc, char** argv) {
  bool after_terminator = false;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") after_terminator = true;
    std::optional<std::string_view> name = NameOf(arg);
    if (i > 0 && !after_terminator && arg.size() > 2 && name.has_value()) {
      const size_t start = static_cast<size_t>(name->data() - arg.data());
      arg.replace(start, name->size(), UnderscoredFlagName(*name));
    }
    storage_.push_back(std::move(arg));
  }
  for (std::string& arg : storage_) pointers_.push_back(arg.data());
  pointers_.push_back(nullptr);
}

std::vector<std::string> FlagValues(int argc, char** argv, std::string_view name) {
  std::vector<std::string> values;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") break;
    std::optional<std::string_view> written = NameOf(arg);
    if (!written.has_value() || !SameFlag(*written, name)) continue;
    const size_t equals = arg.find('=');
    if (equals != std::string_view::npos) {
      values.emplace_back(arg.substr(equals + 1));
    } else if (i + 1 < argc) {
      values.emplace_back(argv[++i]);
    }
  }
  return values;
}

bool FlagNamed(int argc, char** argv, std::string_view name) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") break;
    std::optional<std::string_view> written = NameOf(arg);
    if (written.has_value() && SameFlag(*written, name)) return true;
  }
  return false;
}

}  // namespace labgate
