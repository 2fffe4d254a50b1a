// A header as instrument manuals write it, e.g.
// "[SOURce#:]VOLTage[:LEVel][:IMMediate][:AMPLitude]": each node's capitals are its short form and
// the whole word its long form (either matches, in any case); a node in [ ] may be left out; '#'
// (or "[1]") after a node lets it carry a numeric suffix, the channel. The first node with '#'
// names the channel a limit applies to.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "serial-service/limits/scpi_message.h"

namespace labgate::serial {

class ScpiHeaderPattern {
 public:
  // INVALID_ARGUMENT naming the pattern for an unbalanced '[', an empty node, or a node that is
  // not letters.
  static absl::StatusOr<ScpiHeaderPattern> Parse(absl::string_view pattern);

  struct Match {
    std::optional<int> channel;  // the suffix on the channel node, if given
  };
  // Whether the resolved header `nodes` is this header (a common command never is).
  std::optional<Match> Matches(const ScpiNodes& nodes) const;

  // Whether any of `nodes` is this header's keyword: its last node that may not be left out
  // (VOLTage in "[SOURce#:]VOLTage[:LEVel]"), in either form.
  bool NamesKeyword(const ScpiNodes& nodes) const;
  // The keyword's long form as the pattern writes it ("VOLTage").
  const std::string& keyword() const { return keyword_; }

  const std::string& text() const { return text_; }

 private:
  struct Node {
    std::string short_form, long_form;  // upper case
    std::string written;                // as the pattern has it: "VOLTage"
    bool optional = false;
    bool takes_suffix = false;
    bool channel = false;
  };
  bool MatchFrom(size_t pattern_at, const ScpiNodes& nodes, size_t node_at, Match* match) const;

  std::string text_;
  std::vector<Node> nodes_;
  size_t keyword_at_ = 0;  // into nodes_
  std::string keyword_;
};

}  // namespace labgate::serial
