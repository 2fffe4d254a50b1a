// Limits in the quantities an instrument speaks of: "never above 5 V on channel 1", "at most
// 0.5 V per step", "ask a person above 3 A". An instrument profile declares where each
// quantity is set (SCPI headers, lists such as APPLy CH1,12,0.5, or a regex for devices that do
// not speak SCPI) and the rules; QuantityLimits reads every line written and says whether it
// may go. A command that touches a limited quantity but cannot be read is refused, never passed
// through.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/byte_pattern.h"
#include "serial-service/limits/scpi_header_pattern.h"
#include "serial-service/limits/scpi_quantity.h"

namespace labgate::serial {

// Where a quantity is set.
struct QuantitySpec {
  std::string name;  // "voltage"
  std::string unit;  // "V" (upper case, as ParseQuantity takes it)
  QuantityRange range;
  // SCPI commands that set it, the value being parameter `parameter` (0-based).
  std::vector<ScpiHeaderPattern> headers;
  int parameter = 0;
  // Devices without SCPI: a pattern (RE2, on each line; every match is a setting) whose group
  // `value` holds the number (and its suffix, if any) and whose optional group `channel`
  // holds the channel's digits.
  CompiledPattern pattern;
  std::string pattern_text;
  // Commands that name the quantity's keyword but set something else (its protection level,
  // its range): they pass unread. Any other such command with values is refused.
  std::vector<ScpiHeaderPattern> other_headers;
};

// A command that sets several quantities at once: APPLy CH1,12,0.5.
struct ListSpec {
  ScpiHeaderPattern header;
  // Where the channel is, and its names (upper case): {"CH1": 1, "CH2": 2}. A parameter there
  // that is no channel name makes the list unreadable ("APPL 12,0.5" could mean anything).
  std::optional<int> channel_parameter;
  std::map<std::string, int> channels;
  std::vector<std::pair<int, std::string>> quantities;  // parameter position -> quantity
};

struct LimitRule {
  std::string name;            // named in refusals: "max-voltage"
  std::string quantity;        // "voltage"
  std::optional<int> channel;  // left out: every channel
  std::optional<double> max, min, max_step, ramp_per_s, confirm_above;
};

struct LimitsSpec {
  std::vector<QuantitySpec> quantities;
  std::vector<ListSpec> lists;
  std::vector<LimitRule> rules;
  int default_channel = 1;  // a header without a channel suffix sets this channel
};

// The last value accepted per quantity and channel, and when: what max_step and ramp_per_s
// compare with. Before any value was accepted on a channel, those two rules have nothing to
// compare with and pass; max, min and confirm_above always apply.
struct LimitState {
  struct Last {
    double value = 0;
    std::chrono::steady_clock::time_point at;
  };
  std::map<std::pair<std::string, int>, Last> last;
};

// One value a write sets.
struct QuantitySetting {
  // kSet: the write sets it. *RST puts the instrument back to its defaults: a quantity with a
  // declared `default` is then at it (kReset), and one without is unknown again (kForget), so
  // max_step and ramp_per_s do not compare with a value the instrument no longer has.
  enum class Kind { kSet, kReset, kForget };
  std::string quantity;
  int channel = 1;
  double value = 0;
  size_t quantity_index = 0;  // into spec().quantities
  Kind kind = Kind::kSet;
};

struct LimitVerdict {
  // OK; PERMISSION_DENIED naming the rule, the value with its unit, the limit and where
  // ("12 V exceeds max-voltage (5 V) on psu-2 channel 1"), or that a command touching a limited
  // quantity cannot be verified.
  absl::Status status;
  std::optional<std::string> confirm_rule;  // allowed once a person approves (confirm_above)
  std::string confirm_reason;               // "4 A is above confirm-current (3 A) on ..."
  std::vector<QuantitySetting> settings;    // what the write sets, in order
};

class QuantityLimits {
 public:
  // INVALID_ARGUMENT for a rule on an unknown quantity, or a list naming one.
  static absl::StatusOr<QuantityLimits> Create(LimitsSpec spec);

  // Reads `bytes` (one write: lines split at '\n' and at '\r') for `where` ("psu-2").
  LimitVerdict Check(absl::string_view bytes, const LimitState& state,
                     std::chrono::steady_clock::time_point now, absl::string_view where) const;
  // What `bytes` set, read as Check reads them, with no rule applied: an error where a
  // command touching a limited quantity cannot be read.
  absl::Status ReadSettings(absl::string_view bytes, std::vector<QuantitySetting>* settings) const;
  // A write whose first line `head` completes the device's unfinished line `earlier`, written in
  // pieces starting at `starts`: refused when the line the device reads (from any of those
  // starts, as it may have dropped what came before) sets a limited quantity otherwise than the
  // parts do alone. Such a setting was never judged whole, nor asked about.
  absl::Status CheckJoin(absl::string_view earlier, const std::vector<size_t>& starts,
                         absl::string_view head, absl::string_view where) const;
  // Whether any quantity is set by SCPI commands (headers or lists), which end at a terminator.
  bool SpeaksScpi() const;
  // The instrument is as *RST leaves it (it was power-cycled, or came back after a loss): a
  // quantity with a declared default is at it, any other unknown.
  void Reset(LimitState* state, std::chrono::steady_clock::time_point now) const;
  // After the write went through: its settings become the last accepted values.
  static void Commit(const std::vector<QuantitySetting>& settings, LimitState* state,
                     std::chrono::steady_clock::time_point now);

  // What `settings` set, for a person: "voltage 3.5 V on psu-2 channel 1; current 0.5 A on
  // psu-2 channel 1".
  std::string Describe(const std::vector<QuantitySetting>& settings, absl::string_view where) const;

  const LimitsSpec& spec() const { return spec_; }
  // The index of the quantity `name` in spec().quantities; -1 when there is none.
  int QuantityIndex(const std::string& name) const;
  // Whether any rule is on the quantity at `index`, and their names ("max-voltage, step-voltage").
  bool Limited(size_t index) const { return !rules_of_quantity_[index].empty(); }
  std::string RulesOn(size_t index) const;

 private:
  explicit QuantityLimits(LimitsSpec spec) : spec_(std::move(spec)) {}
  // A value outside its quantity's declared range (min, max) is refused whatever the rules
  // say: the profile declares what the instrument can be set to. The refusal's text, or "".
  std::string OutsideRange(const QuantitySetting& setting, absl::string_view where) const;
  // What `rule` says of `setting`: a refusal's text, or a question's for a person; "" for none.
  std::string Refusal(const LimitRule& rule, const QuantitySetting& setting,
                      const LimitState::Last* last, std::chrono::steady_clock::time_point now,
                      absl::string_view where) const;
  std::string Question(const LimitRule& rule, const QuantitySetting& setting,
                       absl::string_view where) const;

  // Replaces each *RST marker ReadSettings left with what it puts back: every quantity on every
  // channel a value is known on (and the default channel), at its default or unknown.
  void ExpandResets(const LimitState& state, std::vector<QuantitySetting>* settings) const;

  LimitsSpec spec_;
  std::vector<std::vector<size_t>> rules_of_quantity_;  // indices into spec_.rules, by quantity
};

}  // namespace labgate::serial
