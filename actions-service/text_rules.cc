#include "actions-service/text_rules.h"

#include <cctype>

namespace labgate::actions {

std::string AsciiLower(std::string_view text) {
  std::string lowered(text);
  for (char& c : lowered) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return lowered;
}

bool ContainsLower(std::string_view lowered_text, std::string_view needle) {
  return lowered_text.find(needle) != std::string_view::npos;
}

bool ContainsAnyLower(std::string_view lowered_text, const std::vector<std::string_view>& needles) {
  for (std::string_view needle : needles) {
    if (ContainsLower(lowered_text, needle)) return true;
  }
  return false;
}

namespace {
bool IsWordByte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
}  // namespace

bool ContainsWordStart(std::string_view lowered_text, std::string_view needle) {
  for (size_t at = lowered_text.find(needle); at != std::string_view::npos;
       at = lowered_text.find(needle, at + 1)) {
    if (at == 0 || !IsWordByte(lowered_text[at - 1])) return true;
  }
  return false;
}

bool ContainsWord(std::string_view lowered_text, std::string_view needle) {
  for (size_t at = lowered_text.find(needle); at != std::string_view::npos;
       at = lowered_text.find(needle, at + 1)) {
    if (at > 0 && IsWordByte(lowered_text[at - 1])) continue;
    size_t end = at + needle.size();
    if (end < lowered_text.size() && lowered_text[end] == 's') ++end;
    if (end < lowered_text.size() && IsWordByte(lowered_text[end])) continue;
    return true;
  }
  return false;
}

size_t ReplaceAllIgnoringCase(std::string& text, std::string_view needle,
                              std::string_view replacement, std::string_view unless_after) {
  if (needle.empty()) return 0;
  std::string lowered = AsciiLower(text);
  std::string out;
  size_t count = 0;
  size_t from = 0;
  for (size_t at = lowered.find(needle); at != std::string::npos;
       at = lowered.find(needle, at + 1)) {
    if (at < from) continue;
    size_t end = at + needle.size();
    if ((at > 0 && IsWordByte(lowered[at - 1])) ||
        (end < lowered.size() && IsWordByte(lowered[end]))) {
      continue;
    }
    if (!unless_after.empty() && at >= unless_after.size() &&
        lowered.compare(at - unless_after.size(), unless_after.size(), unless_after) == 0) {
      continue;
    }
    out.append(text, from, at - from);
    std::string piece(replacement);
    if (!piece.empty() && text[at] >= 'A' && text[at] <= 'Z' && piece[0] >= 'a' &&
        piece[0] <= 'z') {
      piece[0] = static_cast<char>(piece[0] - 'a' + 'A');
    }
    out += piece;
    from = at + needle.size();
    ++count;
  }
  if (count == 0) return 0;
  out.append(text, from, std::string::npos);
  text = std::move(out);
  return count;
}

std::string ReplaceWordsInOnePass(std::string_view text, const std::vector<WordReplacement>& rules,
                                  std::vector<size_t>* counts) {
  counts->assign(rules.size(), 0);
  const std::string lowered = AsciiLower(text);
  std::string out;
  out.reserve(text.size());
  size_t at = 0;
  while (at < text.size()) {
    bool replaced = false;
    if (at == 0 || !IsWordByte(lowered[at - 1])) {
      for (size_t i = 0; i < rules.size() && !replaced; ++i) {
        const WordReplacement& rule = rules[i];
        const size_t end = at + rule.needle.size();
        if (rule.needle.empty() || lowered.compare(at, rule.needle.size(), rule.needle) != 0 ||
            (end < lowered.size() && IsWordByte(lowered[end]))) {
          continue;
        }
        std::string piece(rule.replacement);
        if (!piece.empty() && text[at] >= 'A' && text[at] <= 'Z' && piece[0] >= 'a' &&
            piece[0] <= 'z') {
          piece[0] = static_cast<char>(piece[0] - 'a' + 'A');
        }
        out += piece;
        ++(*counts)[i];
        at = end;
        replaced = true;
      }
    }
    if (!replaced) out.push_back(text[at++]);
  }
  return out;
}

bool ContainsCrisisLanguage(std::string_view text) {
  static const std::vector<std::string_view> kPhrases = {
      "suicid",
      "self-harm",
      "self harm",
      "end my life",
      "no point",
      "don't want to be here",
      "don\xE2\x80\x99t want to be here",  // typographic apostrophe
      "dont want to be here",
      "do not want to be here",
      "kill myself",
      "want to die",
  };
  return ContainsAnyLower(AsciiLower(text), kPhrases);
}

std::vector<std::string> CrisisEscalationGuidance() {
  return {
      "If you are in immediate danger, contact your local emergency services now "
      "(for example 999, 112 or 911)",
      "Contact a 24/7 crisis line: Samaritans 116 123 | US: 988 | findahelpline.com",
      "Reach out to a trusted person (a friend, family member or colleague) and let them know "
      "how you are feeling",
  };
}

std::string Excerpt(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut)) + "...";
}

size_t CountWords(std::string_view text) {
  size_t words = 0;
  bool in_word = false;
  for (char c : text) {
    bool space = std::isspace(static_cast<unsigned char>(c)) != 0;
    if (!space && !in_word) ++words;
    in_word = !space;
  }
  return words;
}

size_t CountSentences(std::string_view text) {
  size_t sentences = 0;
  bool pending = false;  // words seen since the last terminator
  for (char c : text) {
    if (c == '.' || c == '!' || c == '?') {
      if (pending) ++sentences;
      pending = false;
    } else if (!std::isspace(static_cast<unsigned char>(c))) {
      pending = true;
    }
  }
  if (pending) ++sentences;
  return sentences;
}

}  // namespace labgate::actions
