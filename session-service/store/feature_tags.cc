#include "session-service/store/feature_tags.h"

#include <algorithm>

namespace labgate::session {
namespace {

bool IsSeparator(char c) {
  return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

char AsciiLower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

std::vector<std::string> NormaliseFeatureTags(std::string_view text) {
  std::vector<std::string> tags;
  std::string current;
  auto flush = [&] {
    if (!current.empty() && std::find(tags.begin(), tags.end(), current) == tags.end()) {
      tags.push_back(current);
    }
    current.clear();
  };
  for (char c : text) {
    if (IsSeparator(c)) {
      flush();
    } else {
      current.push_back(AsciiLower(c));
    }
  }
  flush();
  return tags;
}

std::string JoinFeatureTags(const std::vector<std::string>& tags) {
  std::string joined;
  for (const std::string& tag : tags) {
    if (!joined.empty()) joined.push_back(',');
    joined += tag;
  }
  return joined;
}

}  // namespace labgate::session
