#include "serial-service/sim/simulated_instrument.h"

#include <re2/re2.h>

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "serial-service/limits/scpi_message.h"

namespace labgate::serial {
namespace {

// SCPI-99 §21.8's error numbers for what a simulated instrument refuses.
constexpr char kUndefinedHeader[] = "-113,\"Undefined header\"";
constexpr char kSyntaxError[] = "-102,\"Syntax error\"";
constexpr char kIllegalValue[] = "-224,\"Illegal parameter value\"";
constexpr char kOutOfRange[] = "-222,\"Data out of range\"";
constexpr char kNoError[] = "0,\"No error\"";

bool IsNode(const ScpiNode& node, absl::string_view short_form, absl::string_view long_form) {
  return SameMnemonic(node.mnemonic, short_form) || SameMnemonic(node.mnemonic, long_form);
}

// SYSTem:ERRor? or SYSTem:ERRor:NEXT?
bool IsErrorQuery(const ScpiCommand& command) {
  const ScpiNodes& nodes = command.nodes;
  if (!command.query || nodes.size() < 2 || nodes.size() > 3) return false;
  return IsNode(nodes[0], "SYST", "SYSTEM") && IsNode(nodes[1], "ERR", "ERROR") &&
         (nodes.size() == 2 || IsNode(nodes[2], "NEXT", "NEXT"));
}

std::string Shown(double value) { return absl::StrFormat("%.6g", value); }

}  // namespace

SimulatedInstrument::SimulatedInstrument(const SimulationSpec& spec, uint32_t noise_seed)
    : spec_(spec), noise_(noise_seed) {}

absl::Status SimulatedInstrument::Open(Clock::time_point now) {
  if (!spec_.banner.empty()) Say(spec_.banner, now);
  return absl::OkStatus();
}

void SimulatedInstrument::Receive(absl::string_view bytes, Clock::time_point now) {
  if (spec_.reboot_on_dtr_pulse && !dtr_) return;  // held in reset: nothing is heard
  partial_.append(bytes.data(), bytes.size());
  size_t end;
  while ((end = partial_.find('\n')) != std::string::npos) {
    const std::string line = partial_.substr(0, end);
    partial_.erase(0, end + 1);
    HandleLine(absl::StripAsciiWhitespace(line), now);
  }
}

void SimulatedInstrument::SetDtr(bool asserted, Clock::time_point now) {
  const bool was = dtr_;
  dtr_ = asserted;
  if (!spec_.reboot_on_dtr_pulse || was || !asserted) return;
  Reset();
  partial_.clear();
  output_.clear();
  if (!spec_.banner.empty()) Say(spec_.banner, now);
}

std::string SimulatedInstrument::TakeDue(Clock::time_point now) {
  std::string due;
  auto end = output_.upper_bound(now);
  for (auto it = output_.begin(); it != end; ++it) due += it->second;
  output_.erase(output_.begin(), end);
  return due;
}

std::optional<SimulatedInstrument::Clock::time_point> SimulatedInstrument::NextDue() const {
  if (output_.empty()) return std::nullopt;
  return output_.begin()->first;
}

double SimulatedInstrument::Value(const std::string& quantity, int channel) const {
  auto it = values_.find({quantity, channel});
  if (it != values_.end()) return it->second;
  for (const SimulationSpec::Quantity& declared : spec_.quantities) {
    if (declared.name == quantity) return declared.initial;
  }
  return 0;
}

void SimulatedInstrument::HandleLine(absl::string_view line, Clock::time_point now) {
  if (line.empty()) return;
  // The profile's own responses come first: they may stand for anything.
  for (const SimulationSpec::Response& response : spec_.responses) {
    if (!re2::RE2::FullMatch(re2::StringPiece(line.data(), line.size()), *response.match)) {
      continue;
    }
    if (response.error.has_value()) {
      PushError(*response.error);
    } else if (!response.reply.empty()) {
      Say(Fill(response.reply) + spec_.terminator,
          now + std::chrono::milliseconds(response.delay_ms));
    }
    return;
  }
  absl::StatusOr<std::vector<ScpiCommand>> commands = ParseScpiLine(line);
  if (!commands.ok()) return PushError(kSyntaxError);
  std::vector<std::string> replies;
  for (const ScpiCommand& command : *commands) {
    if (command.common) {
      if (IsNode(command.nodes[0], "RST", "RST") && !command.query) {
        Reset();
      } else if (IsNode(command.nodes[0], "CLS", "CLS") && !command.query) {
        errors_.clear();
      } else {
        PushError(kUndefinedHeader);
      }
      continue;
    }
    if (IsErrorQuery(command)) {
      replies.push_back(errors_.empty() ? kNoError : errors_.front());
      if (!errors_.empty()) errors_.pop_front();
      continue;
    }
    // MEASure:VOLTage? reads what VOLTage? reads.
    ScpiNodes nodes = command.nodes;
    if (command.query && nodes.size() > 1 && IsNode(nodes[0], "MEAS", "MEASURE")) {
      nodes.erase(nodes.begin());
    }
    if (HandleSwitch(command, nodes, &replies)) continue;
    bool known = false;
    for (const SimulationSpec::Quantity& quantity : spec_.quantities) {
      for (const ScpiHeaderPattern& header : quantity.headers) {
        std::optional<ScpiHeaderPattern::Match> match = header.Matches(nodes);
        if (!match.has_value()) continue;
        known = true;
        const int channel = match->channel.value_or(1);
        if (command.query) {
          replies.push_back(Reading(quantity, channel));
        } else if (command.parameters.empty()) {
          PushError(kIllegalValue);
        } else {
          absl::StatusOr<double> value =
              ParseQuantity(command.parameters[0], quantity.unit, quantity.range);
          if (!value.ok()) {
            PushError(kIllegalValue);
          } else if ((quantity.range.min.has_value() && *value < *quantity.range.min) ||
                     (quantity.range.max.has_value() && *value > *quantity.range.max)) {
            PushError(kOutOfRange);
          } else {
            values_[{quantity.name, channel}] = *value;
          }
        }
        break;
      }
      if (known) break;
    }
    if (!known) PushError(kUndefinedHeader);
  }
  if (!replies.empty()) Say(absl::StrJoin(replies, ";") + spec_.terminator, now);
}

bool SimulatedInstrument::HandleSwitch(const ScpiCommand& command, const ScpiNodes& nodes,
                                       std::vector<std::string>* replies) {
  for (const SimulationSpec::Switch& entry : spec_.switches) {
    for (const ScpiHeaderPattern& header : entry.headers) {
      std::optional<ScpiHeaderPattern::Match> match = header.Matches(nodes);
      if (!match.has_value()) continue;
      const std::pair<std::string, int> key{entry.name, match->channel.value_or(1)};
      if (command.query) {
        replies->push_back(SwitchOn(key.first, key.second) ? "1" : "0");
        return true;
      }
      const std::string given =
          command.parameters.empty() ? "" : absl::AsciiStrToUpper(command.parameters[0]);
      if (given == "ON" || given == "1") {
        switches_[key] = true;
      } else if (given == "OFF" || given == "0") {
        switches_[key] = false;
      } else {
        PushError(kIllegalValue);
      }
      return true;
    }
  }
  return false;
}

bool SimulatedInstrument::SwitchOn(const std::string& name, int channel) const {
  auto it = switches_.find({name, channel});
  if (it != switches_.end()) return it->second;
  for (const SimulationSpec::Switch& declared : spec_.switches) {
    if (declared.name == name) return declared.initial;
  }
  return false;
}

void SimulatedInstrument::Say(std::string text, Clock::time_point at) {
  output_.emplace(at, std::move(text));
}

void SimulatedInstrument::PushError(std::string error) {
  if (errors_.size() >= SimulationSpec::kMaxErrors) errors_.pop_front();
  errors_.push_back(std::move(error));
}

void SimulatedInstrument::Reset() {
  values_.clear();
  switches_.clear();
  errors_.clear();
}

std::string SimulatedInstrument::Fill(const std::string& reply) const {
  std::vector<std::pair<std::string, std::string>> fields = {{"{serial}", spec_.serial}};
  fields.reserve(spec_.quantities.size() + 1);
  for (const SimulationSpec::Quantity& quantity : spec_.quantities) {
    fields.emplace_back(absl::StrCat("{", quantity.name, "}"), Shown(Value(quantity.name)));
  }
  return absl::StrReplaceAll(reply, fields);
}

std::string SimulatedInstrument::Reading(const SimulationSpec::Quantity& quantity, int channel) {
  double value = Value(quantity.name, channel);
  if (quantity.noise > 0) {
    value += std::uniform_real_distribution<double>(-quantity.noise, quantity.noise)(noise_);
  }
  return Shown(value);
}

}  // namespace labgate::serial
