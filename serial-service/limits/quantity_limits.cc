#include "serial-service/limits/quantity_limits.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "absl/container/inlined_vector.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "re2/re2.h"
#include "serial-service/limits/scpi_message.h"

namespace labgate::serial {
namespace {

// The digits of a regex's channel group: "1", "02".
std::optional<int> ChannelIn(absl::string_view digits) {
  int channel = 0;
  if (digits.empty() || !absl::SimpleAtoi(digits, &channel)) return std::nullopt;
  return channel;
}

std::string Where(absl::string_view where, int channel) {
  return absl::StrCat(where, " channel ", channel);
}

// The values one write sets, read from its lines.
class WriteReader {
 public:
  explicit WriteReader(const QuantityLimits& limits) : limits_(limits), spec_(limits.spec()) {}

  absl::Status ReadLine(absl::string_view line, std::vector<QuantitySetting>* settings) const {
    for (size_t index = 0; index < spec_.quantities.size(); ++index) {
      if (spec_.quantities[index].pattern == nullptr) continue;
      if (absl::Status read = ReadPattern(index, line, settings); !read.ok()) return read;
    }
    if (!limits_.SpeaksScpi()) return absl::OkStatus();
    // One vector per thread, kept between lines: no allocation per line written.
    thread_local std::vector<ScpiCommand> parsed;
    const absl::Status commands = ParseScpiLine(line, &parsed);
    if (!commands.ok()) {
      // Which header it touches cannot be known: refused if anything is limited at all.
      return CannotVerifyAny(line, commands.message());
    }
    for (const ScpiCommand& command : parsed) {
      if (command.common && !command.query && !command.nodes.empty() &&
          absl::EqualsIgnoreCase(command.nodes[0].mnemonic, "RCL")) {
        // A recalled setup sets whatever was stored in the instrument, unseen by labgate.
        absl::Status refused = CannotVerifyAny(
            command.text, "it recalls a stored setup, whose values labgate cannot see");
        if (!refused.ok()) return refused;
      }
      if (command.common && !command.query && !command.nodes.empty() &&
          absl::EqualsIgnoreCase(command.nodes[0].mnemonic, "RST")) {
        // A marker: Check turns it into the quantities it puts back.
        QuantitySetting reset;
        reset.kind = QuantitySetting::Kind::kReset;
        settings->push_back(std::move(reset));
      }
      if (command.common || command.query) continue;
      if (absl::Status channels = CheckChannelChoice(command); !channels.ok()) return channels;
      bool declared = false;  // a list or a header of the profile's reads this command
      for (const ListSpec& list : spec_.lists) {
        if (!list.header.Matches(command.nodes).has_value()) continue;
        declared = true;
        int channel = spec_.default_channel;
        if (list.channel_parameter.has_value()) {
          const size_t at = static_cast<size_t>(*list.channel_parameter);
          const std::string given =
              at < command.parameters.size() ? absl::AsciiStrToUpper(command.parameters[at]) : "";
          auto named = list.channels.find(given);
          if (named == list.channels.end()) {
            if (command.parameters.empty()) continue;  // no values: nothing is set
            for (const auto& [position, name] : list.quantities) {
              const size_t index = static_cast<size_t>(limits_.QuantityIndex(name));
              if (!limits_.Limited(index)) continue;
              std::vector<std::string> names;
              names.reserve(list.channels.size());
              for (const auto& [channel_name, number] : list.channels) {
                names.push_back(channel_name);
              }
              return CannotVerify(
                  command.text, index,
                  absl::StrCat(given.empty() ? std::string("no channel given")
                                             : absl::StrCat("'", given, "' is not a channel"),
                               " (", list.header.text(), " takes ", absl::StrJoin(names, ", "),
                               ")"));
            }
            continue;
          }
          channel = named->second;
        }
        for (const auto& [position, name] : list.quantities) {
          if (static_cast<size_t>(position) >= command.parameters.size()) continue;
          if (absl::Status read =
                  ReadValue(static_cast<size_t>(limits_.QuantityIndex(name)), channel,
                            command.parameters[position], command.text, settings);
              !read.ok()) {
            return read;
          }
        }
      }
      for (size_t index = 0; index < spec_.quantities.size(); ++index) {
        const QuantitySpec& quantity = spec_.quantities[index];
        for (const ScpiHeaderPattern& header : quantity.headers) {
          std::optional<ScpiHeaderPattern::Match> match = header.Matches(command.nodes);
          if (!match.has_value()) continue;
          declared = true;
          const size_t at = static_cast<size_t>(quantity.parameter);
          if (at >= command.parameters.size()) break;  // no value: nothing is set
          if (absl::Status read = ReadValue(index, match->channel.value_or(spec_.default_channel),
                                            command.parameters[at], command.text, settings);
              !read.ok()) {
            return read;
          }
          break;
        }
      }
      if (declared) continue;
      if (absl::Status undeclared = CheckUndeclared(command); !undeclared.ok()) return undeclared;
    }
    return absl::OkStatus();
  }

 private:
  // A setting applies to the channel its header names (SOURce2:VOLTage), the list's channel
  // word, or the default channel. INSTrument CH2 (or :NSELect 2) would move later settings to
  // another channel than labgate reads, and a channel list (VOLT 12,(@2)) names channels labgate
  // does not read: both are refused on a limited instrument.
  absl::Status CheckChannelChoice(const ScpiCommand& command) const {
    if (command.parameters.empty()) return absl::OkStatus();
    if (!command.nodes.empty() && (SameMnemonic(command.nodes[0].mnemonic, "INST") ||
                                   SameMnemonic(command.nodes[0].mnemonic, "INSTRUMENT"))) {
      return CannotVerifyAny(command.text,
                             "it selects a channel, after which labgate could not tell which "
                             "channel a setting is for; name the channel in each command instead "
                             "(SOURce2:VOLTage 3, or a list such as APPLy CH2,3,0.5)");
    }
    for (absl::string_view parameter : command.parameters) {
      if (absl::StartsWith(parameter, "(@")) {
        return CannotVerifyAny(command.text,
                               "its channel list is not read; name the channel in the header "
                               "instead (SOURce2:VOLTage 3)");
      }
    }
    return absl::OkStatus();
  }

  // A command no header or list of the profile reads, with values, that names a limited
  // quantity's keyword (VOLT:TRIG 35, LIST:VOLT 1,35) may well set it, unseen: refused unless
  // the profile lists it among the quantity's other_headers. One that recalls a stored setup
  // (MEM:RCL 1, like *RCL) is refused on any limited instrument.
  absl::Status CheckUndeclared(const ScpiCommand& command) const {
    for (const ScpiNode& node : command.nodes) {
      if (SameMnemonic(node.mnemonic, "RCL") || SameMnemonic(node.mnemonic, "REC") ||
          SameMnemonic(node.mnemonic, "RECALL")) {
        return CannotVerifyAny(command.text,
                               "it recalls a stored setup, whose values labgate cannot see");
      }
    }
    if (command.parameters.empty()) return absl::OkStatus();
    for (size_t index = 0; index < spec_.quantities.size(); ++index) {
      if (!limits_.Limited(index)) continue;
      const QuantitySpec& quantity = spec_.quantities[index];
      const ScpiHeaderPattern* named = nullptr;
      for (const ScpiHeaderPattern& header : quantity.headers) {
        if (header.NamesKeyword(command.nodes)) named = &header;
      }
      if (named == nullptr) continue;
      const bool other = std::any_of(quantity.other_headers.begin(), quantity.other_headers.end(),
                                     [&](const ScpiHeaderPattern& header) {
                                       return header.Matches(command.nodes).has_value();
                                     });
      if (other) continue;
      return CannotVerify(
          command.text, index,
          absl::StrCat("it names ", named->keyword(),
                       " but is not a header the profile declares as ", "setting ", quantity.name,
                       " (list it in the quantity's headers, or in its other_headers if it sets "
                       "something else)"));
    }
    return absl::OkStatus();
  }

  // Refused when anything at all is limited; OK otherwise.
  absl::Status CannotVerifyAny(absl::string_view text, absl::string_view why) const {
    if (spec_.rules.empty()) return absl::OkStatus();
    std::vector<std::string> rules;
    rules.reserve(spec_.rules.size());
    for (const LimitRule& rule : spec_.rules) rules.push_back(rule.name);
    return absl::PermissionDeniedError(
        absl::StrCat("cannot verify '", text, "' against ", absl::StrJoin(rules, ", "), ": ", why));
  }

  absl::Status CannotVerify(absl::string_view text, size_t quantity, absl::string_view why) const {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot verify '", text, "' against ", limits_.RulesOn(quantity), ": ", why));
  }

  absl::Status ReadValue(size_t index, int channel, absl::string_view parameter,
                         absl::string_view text, std::vector<QuantitySetting>* settings) const {
    const QuantitySpec& quantity = spec_.quantities[index];
    absl::StatusOr<double> value = ParseQuantity(parameter, quantity.unit, quantity.range);
    if (!value.ok()) {
      if (!limits_.Limited(index)) return absl::OkStatus();
      return CannotVerify(text, index, value.status().message());
    }
    settings->push_back({quantity.name, channel, *value, index});
    return absl::OkStatus();
  }

  // Every match in the line is a setting, in order: a device may take several in one line
  // (VSET1:1VSET1:30), so checking only the first would pass the rest unread.
  absl::Status ReadPattern(size_t index, absl::string_view line,
                           std::vector<QuantitySetting>* settings) const {
    const re2::RE2& pattern = *spec_.quantities[index].pattern;
    const std::map<std::string, int>& groups = pattern.NamedCapturingGroups();
    std::vector<re2::StringPiece> captured(static_cast<size_t>(pattern.NumberOfCapturingGroups()) +
                                           1);
    const re2::StringPiece text(line.data(), line.size());
    size_t from = 0;
    while (from <= line.size() &&
           pattern.Match(text, from, line.size(), re2::RE2::UNANCHORED, captured.data(),
                         static_cast<int>(captured.size()))) {
      const re2::StringPiece whole = captured[0];
      const size_t end = static_cast<size_t>(whole.data() - line.data()) + whole.size();
      // An empty match would be found again at the same place: step past one byte.
      from = whole.empty() ? end + 1 : end;
      if (absl::Status read = ReadMatch(index, groups, captured, line, settings); !read.ok()) {
        return read;
      }
    }
    return absl::OkStatus();
  }

  absl::Status ReadMatch(size_t index, const std::map<std::string, int>& groups,
                         const std::vector<re2::StringPiece>& captured, absl::string_view line,
                         std::vector<QuantitySetting>* settings) const {
    auto group = [&](const char* name) -> std::optional<absl::string_view> {
      auto found = groups.find(name);
      if (found == groups.end() || captured[static_cast<size_t>(found->second)].data() == nullptr) {
        return std::nullopt;
      }
      const re2::StringPiece piece = captured[static_cast<size_t>(found->second)];
      return absl::string_view(piece.data(), piece.size());
    };
    int channel = spec_.default_channel;
    if (std::optional<absl::string_view> given = group("channel")) {
      std::optional<int> number = ChannelIn(*given);
      if (!number.has_value()) {
        if (!limits_.Limited(index)) return absl::OkStatus();
        return CannotVerify(line, index, "its channel is not a number");
      }
      channel = *number;
    }
    std::optional<absl::string_view> value = group("value");
    return ReadValue(index, channel, value.value_or(""), line, settings);
  }

  const QuantityLimits& limits_;
  const LimitsSpec& spec_;
};

}  // namespace

absl::StatusOr<QuantityLimits> QuantityLimits::Create(LimitsSpec spec) {
  QuantityLimits limits(std::move(spec));
  limits.rules_of_quantity_.resize(limits.spec_.quantities.size());
  for (size_t r = 0; r < limits.spec_.rules.size(); ++r) {
    const LimitRule& rule = limits.spec_.rules[r];
    const int index = limits.QuantityIndex(rule.quantity);
    if (index >= 0) limits.rules_of_quantity_[static_cast<size_t>(index)].push_back(r);
    if (index < 0) {
      return absl::InvalidArgumentError(absl::StrCat("limit '", rule.name, "' is on the quantity '",
                                                     rule.quantity,
                                                     "', which the profile does not declare"));
    }
  }
  for (const ListSpec& list : limits.spec_.lists) {
    for (const auto& [position, name] : list.quantities) {
      if (limits.QuantityIndex(name) < 0) {
        return absl::InvalidArgumentError(absl::StrCat("the list '", list.header.text(),
                                                       "' names the quantity '", name,
                                                       "', which the profile does not declare"));
      }
    }
  }
  for (const QuantitySpec& quantity : limits.spec_.quantities) {
    if (quantity.pattern != nullptr &&
        !quantity.pattern->NamedCapturingGroups().contains("value")) {
      return absl::InvalidArgumentError(absl::StrCat("the pattern of '", quantity.name,
                                                     "' has no group named value: (?P<value>...)"));
    }
  }
  return limits;
}

std::string QuantityLimits::RulesOn(size_t index) const {
  std::vector<std::string> names;
  for (size_t rule : rules_of_quantity_[index]) names.push_back(spec_.rules[rule].name);
  return absl::StrJoin(names, ", ");
}

int QuantityLimits::QuantityIndex(const std::string& name) const {
  for (size_t index = 0; index < spec_.quantities.size(); ++index) {
    if (spec_.quantities[index].name == name) return static_cast<int>(index);
  }
  return -1;
}

absl::Status QuantityLimits::ReadSettings(absl::string_view bytes,
                                          std::vector<QuantitySetting>* settings) const {
  const WriteReader reader(*this);
  // A lone '\r' ends a message too: a device that takes it as one would otherwise run a
  // second command hidden behind it. "\r\n" leaves an empty line, skipped.
  for (absl::string_view line : absl::StrSplit(bytes, absl::ByAnyChar("\r\n"))) {
    line = absl::StripAsciiWhitespace(line);
    if (line.empty()) continue;
    if (absl::Status read = reader.ReadLine(line, settings); !read.ok()) return read;
  }
  return absl::OkStatus();
}

absl::Status QuantityLimits::CheckJoin(absl::string_view earlier, const std::vector<size_t>& starts,
                                       absl::string_view head, absl::string_view where) const {
  // The limited settings, as (quantity, channel, value): what a join must not change.
  using LimitedSettings = std::vector<std::tuple<size_t, int, double>>;
  auto limited_in = [this](absl::string_view text, LimitedSettings* limited) {
    std::vector<QuantitySetting> read;
    absl::Status status = ReadSettings(text, &read);
    for (const QuantitySetting& setting : read) {
      if (setting.kind != QuantitySetting::Kind::kSet) {
        limited->emplace_back(SIZE_MAX, 0, 0);  // a reset changes what the steps compare with
      } else if (Limited(setting.quantity_index)) {
        limited->emplace_back(setting.quantity_index, setting.channel, setting.value);
      }
    }
    return status;
  };
  LimitedSettings own;
  if (absl::Status read = limited_in(head, &own); !read.ok()) return read;
  for (const size_t start : starts) {
    const absl::string_view from = earlier.substr(std::min(start, earlier.size()));
    const std::string joined = absl::StrCat(from, head);
    LimitedSettings expected, found;
    absl::Status read = limited_in(from, &expected);
    if (read.ok()) read = limited_in(joined, &found);
    expected.insert(expected.end(), own.begin(), own.end());
    if (read.ok() && found == expected) continue;
    return absl::PermissionDeniedError(absl::StrCat(
        "'", joined, "' on ", where,
        " would be a setting that no check saw whole: this write completes the line '", earlier,
        "' begun in an earlier write. Send each setting in one write, and end the unfinished "
        "line first (send a line terminator)"));
  }
  return absl::OkStatus();
}

bool QuantityLimits::SpeaksScpi() const {
  if (!spec_.lists.empty()) return true;
  for (const QuantitySpec& quantity : spec_.quantities) {
    if (!quantity.headers.empty()) return true;
  }
  return false;
}

LimitVerdict QuantityLimits::Check(absl::string_view bytes, const LimitState& state,
                                   std::chrono::steady_clock::time_point now,
                                   absl::string_view where) const {
  LimitVerdict verdict;
  verdict.settings.reserve(8);
  verdict.status = ReadSettings(bytes, &verdict.settings);
  if (!verdict.status.ok()) return verdict;
  ExpandResets(state, &verdict.settings);
  // Values set earlier in the same write count as the last ones, at this very moment.
  // (A handful per write: a short list, searched in order, costs less than a map.)
  absl::InlinedVector<std::pair<std::pair<size_t, int>, double>, 8> earlier;
  // After a reset in this write, a value not set since is the default, or unknown.
  absl::InlinedVector<std::pair<size_t, int>, 8> forgotten;
  for (const QuantitySetting& setting : verdict.settings) {
    const std::pair<size_t, int> key{setting.quantity_index, setting.channel};
    if (setting.kind != QuantitySetting::Kind::kSet) {
      if (setting.kind == QuantitySetting::Kind::kReset) earlier.emplace_back(key, setting.value);
      if (setting.kind == QuantitySetting::Kind::kForget) forgotten.push_back(key);
      continue;
    }
    LimitState::Last last;
    bool known = false;
    auto found = std::find_if(earlier.rbegin(), earlier.rend(),
                              [&](const auto& entry) { return entry.first == key; });
    if (found != earlier.rend()) {
      last = {found->second, now};
      known = true;
    } else if (std::find(forgotten.begin(), forgotten.end(), key) != forgotten.end()) {
      known = false;
    } else if (auto stored = state.last.find({setting.quantity, setting.channel});
               stored != state.last.end()) {
      last = stored->second;
      known = true;
    }
    for (size_t rule_index : rules_of_quantity_[setting.quantity_index]) {
      const LimitRule& rule = spec_.rules[rule_index];
      if (rule.channel.has_value() && *rule.channel != setting.channel) continue;
      const std::string refusal = Refusal(rule, setting, known ? &last : nullptr, now, where);
      if (!refusal.empty()) {
        verdict.status = absl::PermissionDeniedError(refusal);
        return verdict;
      }
      if (!verdict.confirm_rule.has_value()) {
        std::string question = Question(rule, setting, where);
        if (!question.empty()) {
          verdict.confirm_rule = rule.name;
          verdict.confirm_reason = std::move(question);
        }
      }
    }
    // After the rules, whose refusals name them: the range bounds what no rule covers.
    if (std::string outside = OutsideRange(setting, where); !outside.empty()) {
      verdict.status = absl::PermissionDeniedError(outside);
      return verdict;
    }
    earlier.emplace_back(key, setting.value);
  }
  return verdict;
}

std::string QuantityLimits::Describe(const std::vector<QuantitySetting>& settings,
                                     absl::string_view where) const {
  std::string described;
  for (const QuantitySetting& setting : settings) {
    if (setting.kind != QuantitySetting::Kind::kSet) continue;
    absl::StrAppend(&described, described.empty() ? "" : "; ", setting.quantity, " ",
                    FormatQuantity(setting.value, spec_.quantities[setting.quantity_index].unit),
                    " on ", Where(where, setting.channel));
  }
  return described;
}

// Kept apart from Check, one rule at a time: clang-tidy's optional-access analysis of one
// function holding every rule's optionals does not finish.
std::string QuantityLimits::OutsideRange(const QuantitySetting& setting,
                                         absl::string_view where) const {
  const QuantitySpec& quantity = spec_.quantities[setting.quantity_index];
  const QuantityRange& range = quantity.range;
  if ((!range.min.has_value() || setting.value >= *range.min) &&
      (!range.max.has_value() || setting.value <= *range.max)) {
    return "";
  }
  auto shown = [&](const std::optional<double>& bound) {
    return bound.has_value() ? FormatQuantity(*bound, quantity.unit) : std::string("any");
  };
  return absl::StrCat(FormatQuantity(setting.value, quantity.unit), " is outside ", quantity.name,
                      "'s declared range (", shown(range.min), " to ", shown(range.max), ") on ",
                      Where(where, setting.channel));
}

std::string QuantityLimits::Refusal(const LimitRule& rule, const QuantitySetting& setting,
                                    const LimitState::Last* last,
                                    std::chrono::steady_clock::time_point now,
                                    absl::string_view where) const {
  const std::string& unit = spec_.quantities[setting.quantity_index].unit;
  auto shown = [&](double value) { return FormatQuantity(value, unit); };
  // Formatted only for a refusal: most lines pass every rule.
  auto at = [&] { return Where(where, setting.channel); };
  const double value = setting.value;
  if (rule.max.has_value() && value > *rule.max) {
    return absl::StrCat(shown(value), " exceeds ", rule.name, " (", shown(*rule.max), ") on ",
                        at());
  }
  if (rule.min.has_value() && value < *rule.min) {
    return absl::StrCat(shown(value), " is below ", rule.name, " (", shown(*rule.min), ") on ",
                        at());
  }
  if (last == nullptr) return "";
  const double change = std::fabs(value - last->value);
  if (rule.max_step.has_value() && change > *rule.max_step) {
    return absl::StrCat("a step of ", shown(change), " (from ", shown(last->value), " to ",
                        shown(value), ") exceeds ", rule.name, " (", shown(*rule.max_step), ") on ",
                        at());
  }
  if (rule.ramp_per_s.has_value() && change > 0) {
    const double seconds = std::chrono::duration<double>(now - last->at).count();
    if (seconds <= 0 || change / seconds > *rule.ramp_per_s) {
      return absl::StrCat("changing ", shown(change), " in ", absl::StrFormat("%.3g", seconds),
                          " s exceeds ", rule.name, " (", shown(*rule.ramp_per_s),
                          " per second) on ", at());
    }
  }
  return "";
}

std::string QuantityLimits::Question(const LimitRule& rule, const QuantitySetting& setting,
                                     absl::string_view where) const {
  if (!rule.confirm_above.has_value() || setting.value <= *rule.confirm_above) return "";
  const std::string& unit = spec_.quantities[setting.quantity_index].unit;
  return absl::StrCat(FormatQuantity(setting.value, unit), " is above ", rule.name, " (",
                      FormatQuantity(*rule.confirm_above, unit), ") on ",
                      Where(where, setting.channel));
}

void QuantityLimits::ExpandResets(const LimitState& state,
                                  std::vector<QuantitySetting>* settings) const {
  auto is_reset = [](const QuantitySetting& setting) {
    return setting.kind == QuantitySetting::Kind::kReset && setting.quantity.empty();
  };
  if (std::none_of(settings->begin(), settings->end(), is_reset)) return;
  // Every channel a value is known on, and each quantity's default channel.
  std::vector<std::pair<size_t, int>> known;
  for (const auto& [key, last] : state.last) {
    const int index = QuantityIndex(key.first);
    if (index >= 0) known.emplace_back(static_cast<size_t>(index), key.second);
  }
  for (size_t index = 0; index < spec_.quantities.size(); ++index) {
    known.emplace_back(index, spec_.default_channel);
  }
  std::sort(known.begin(), known.end());
  known.erase(std::unique(known.begin(), known.end()), known.end());
  std::vector<QuantitySetting> expanded;
  expanded.reserve(settings->size() + known.size());
  for (QuantitySetting& setting : *settings) {
    if (!is_reset(setting)) {
      expanded.push_back(std::move(setting));
      continue;
    }
    for (const auto& [index, channel] : known) {
      const QuantitySpec& quantity = spec_.quantities[index];
      QuantitySetting back;
      back.quantity = quantity.name;
      back.channel = channel;
      back.quantity_index = index;
      back.kind = quantity.range.def.has_value() ? QuantitySetting::Kind::kReset
                                                 : QuantitySetting::Kind::kForget;
      back.value = quantity.range.def.value_or(0);
      expanded.push_back(std::move(back));
    }
  }
  *settings = std::move(expanded);
}

void QuantityLimits::Reset(LimitState* state, std::chrono::steady_clock::time_point now) const {
  QuantitySetting reset;
  reset.kind = QuantitySetting::Kind::kReset;  // the marker ReadSettings leaves for *RST
  std::vector<QuantitySetting> settings{reset};
  ExpandResets(*state, &settings);
  Commit(settings, state, now);
}

void QuantityLimits::Commit(const std::vector<QuantitySetting>& settings, LimitState* state,
                            std::chrono::steady_clock::time_point now) {
  for (const QuantitySetting& setting : settings) {
    if (setting.kind == QuantitySetting::Kind::kForget) {
      state->last.erase({setting.quantity, setting.channel});
    } else {
      state->last[{setting.quantity, setting.channel}] = {setting.value, now};
    }
  }
}

}  // namespace labgate::serial
