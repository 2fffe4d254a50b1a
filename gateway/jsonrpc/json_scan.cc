#include "gateway/jsonrpc/json_scan.h"

#include <nlohmann/json.hpp>
#include <string>

namespace labgate::gateway::jsonrpc {
namespace {

bool IsJsonSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

void SkipSpace(std::string_view text, size_t* i) {
  while (*i < text.size() && IsJsonSpace(text[*i])) ++*i;
}

// At an opening quote: moves past the closing quote. False if the string is unterminated.
bool SkipString(std::string_view text, size_t* i) {
  for (size_t j = *i + 1; j < text.size(); ++j) {
    if (text[j] == '\\') {
      ++j;
    } else if (text[j] == '"') {
      *i = j + 1;
      return true;
    }
  }
  return false;
}

// Moves past one value of any kind. False on malformed text.
bool SkipValue(std::string_view text, size_t* i) {
  if (*i >= text.size()) return false;
  char c = text[*i];
  if (c == '"') return SkipString(text, i);
  if (c == '{' || c == '[') {
    size_t depth = 0;
    while (*i < text.size()) {
      char d = text[*i];
      if (d == '"') {
        if (!SkipString(text, i)) return false;
        continue;
      }
      ++*i;
      if (d == '{' || d == '[') {
        ++depth;
      } else if (d == '}' || d == ']') {
        if (--depth == 0) return true;
      }
    }
    return false;
  }
  // number, true, false, null
  size_t start = *i;
  while (*i < text.size() && !IsJsonSpace(text[*i]) && text[*i] != ',' && text[*i] != '}' &&
         text[*i] != ']') {
    ++*i;
  }
  return *i > start;
}

bool KeyEquals(std::string_view quoted_key, std::string_view key) {
  std::string_view inner = quoted_key.substr(1, quoted_key.size() - 2);
  if (inner.find('\\') == std::string_view::npos) return inner == key;
  nlohmann::json decoded =
      nlohmann::json::parse(quoted_key.begin(), quoted_key.end(), nullptr, false);
  return decoded.is_string() && decoded.get_ref<const std::string&>() == key;
}

}  // namespace

std::optional<std::string_view> TopLevelMemberText(std::string_view text, std::string_view key) {
  size_t i = 0;
  SkipSpace(text, &i);
  if (i >= text.size() || text[i] != '{') return std::nullopt;
  ++i;
  std::optional<std::string_view> found;
  SkipSpace(text, &i);
  if (i < text.size() && text[i] == '}') return std::nullopt;
  while (true) {
    SkipSpace(text, &i);
    if (i >= text.size() || text[i] != '"') return std::nullopt;
    size_t key_start = i;
    if (!SkipString(text, &i)) return std::nullopt;
    std::string_view quoted_key = text.substr(key_start, i - key_start);
    SkipSpace(text, &i);
    if (i >= text.size() || text[i] != ':') return std::nullopt;
    ++i;
    SkipSpace(text, &i);
    size_t value_start = i;
    if (!SkipValue(text, &i)) return std::nullopt;
    if (KeyEquals(quoted_key, key)) found = text.substr(value_start, i - value_start);
    SkipSpace(text, &i);
    if (i >= text.size()) return std::nullopt;
    if (text[i] == '}') return found;
    if (text[i] != ',') return std::nullopt;
    ++i;
  }
}

}  // namespace labgate::gateway::jsonrpc
