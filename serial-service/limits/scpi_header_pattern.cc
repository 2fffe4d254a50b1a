#include "serial-service/limits/scpi_header_pattern.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace labgate::serial {
namespace {

absl::Status BadPattern(absl::string_view pattern, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("header '", pattern, "': ", why));
}

}  // namespace

absl::StatusOr<ScpiHeaderPattern> ScpiHeaderPattern::Parse(absl::string_view pattern) {
  ScpiHeaderPattern parsed;
  parsed.text_ = std::string(pattern);
  bool any_channel = false;
  size_t i = 0;
  if (i < pattern.size() && pattern[i] == ':') ++i;  // a leading ':' says "from the root"
  while (i < pattern.size()) {
    Node node;
    // "[:LEVel]" or "[SOURce#:]": an optional node, its colon inside the brackets.
    if (pattern[i] == '[') {
      node.optional = true;
      ++i;
    }
    if (node.optional && i < pattern.size() && pattern[i] == ':') ++i;
    const size_t word_start = i;
    while (i < pattern.size() && absl::ascii_isalpha(static_cast<unsigned char>(pattern[i]))) {
      ++i;
    }
    const absl::string_view word = pattern.substr(word_start, i - word_start);
    if (word.empty()) return BadPattern(pattern, absl::StrCat("no node at offset ", word_start));
    size_t capitals = 0;
    while (capitals < word.size() &&
           absl::ascii_isupper(static_cast<unsigned char>(word[capitals]))) {
      ++capitals;
    }
    if (capitals == 0) {
      return BadPattern(pattern, absl::StrCat("'", word, "' has no capitals (its short form)"));
    }
    node.short_form = absl::AsciiStrToUpper(word.substr(0, capitals));
    node.long_form = absl::AsciiStrToUpper(word);
    node.written = std::string(word);
    if (i < pattern.size() && pattern[i] == '#') {
      node.takes_suffix = true;
      ++i;
    } else if (pattern.substr(i, 3) == "[1]") {
      node.takes_suffix = true;
      i += 3;
    }
    if (node.takes_suffix && !any_channel) node.channel = any_channel = true;
    if (node.optional) {
      if (i < pattern.size() && pattern[i] == ':') ++i;
      if (i >= pattern.size() || pattern[i] != ']') {
        return BadPattern(pattern, absl::StrCat("'[' at node '", word, "' is not closed"));
      }
      ++i;
    } else if (i < pattern.size()) {
      if (pattern[i] != ':' && pattern[i] != '[') {
        return BadPattern(pattern, absl::StrCat("unexpected '", pattern.substr(i, 1), "'"));
      }
      if (pattern[i] == ':') ++i;
      if (i == pattern.size()) return BadPattern(pattern, "it ends with ':'");
    }
    parsed.nodes_.push_back(std::move(node));
  }
  if (parsed.nodes_.empty()) return BadPattern(pattern, "no nodes");
  bool required = false;
  for (const Node& node : parsed.nodes_) required = required || !node.optional;
  if (!required) return BadPattern(pattern, "every node is optional");
  for (size_t at = 0; at < parsed.nodes_.size(); ++at) {
    if (!parsed.nodes_[at].optional) parsed.keyword_at_ = at;
  }
  parsed.keyword_ = parsed.nodes_[parsed.keyword_at_].written;
  return parsed;
}

bool ScpiHeaderPattern::NamesKeyword(const ScpiNodes& nodes) const {
  const Node& keyword = nodes_[keyword_at_];
  return std::any_of(nodes.begin(), nodes.end(), [&keyword](const ScpiNode& node) {
    return SameMnemonic(node.mnemonic, keyword.short_form) ||
           SameMnemonic(node.mnemonic, keyword.long_form);
  });
}

std::optional<ScpiHeaderPattern::Match> ScpiHeaderPattern::Matches(const ScpiNodes& nodes) const {
  // Most commands written are not this one: their last node rules them out at once. It can only
  // be one of the pattern's nodes from its last required one on.
  if (nodes.empty()) return std::nullopt;
  const absl::string_view last = nodes.back().mnemonic;
  bool may_end_here = false;
  for (size_t i = nodes_.size(); i-- > 0 && !may_end_here;) {
    may_end_here =
        SameMnemonic(last, nodes_[i].short_form) || SameMnemonic(last, nodes_[i].long_form);
    if (!nodes_[i].optional) break;
  }
  if (!may_end_here) return std::nullopt;
  Match match;
  if (!MatchFrom(0, nodes, 0, &match)) return std::nullopt;
  return match;
}

// Headers have a handful of nodes: trying each optional node both ways costs nothing.
bool ScpiHeaderPattern::MatchFrom(size_t pattern_at, const ScpiNodes& nodes, size_t node_at,
                                  Match* match) const {
  if (pattern_at == nodes_.size()) return node_at == nodes.size();
  const Node& wanted = nodes_[pattern_at];
  if (node_at < nodes.size()) {
    const ScpiNode& given = nodes[node_at];
    const bool same = SameMnemonic(given.mnemonic, wanted.short_form) ||
                      SameMnemonic(given.mnemonic, wanted.long_form);
    if (same && (!given.suffix.has_value() || wanted.takes_suffix)) {
      Match taken = *match;
      if (wanted.channel) taken.channel = given.suffix;
      if (MatchFrom(pattern_at + 1, nodes, node_at + 1, &taken)) {
        *match = taken;
        return true;
      }
    }
  }
  return wanted.optional && MatchFrom(pattern_at + 1, nodes, node_at, match);
}

}  // namespace labgate::serial
