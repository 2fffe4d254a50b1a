#include "serial-service/ports/port_settings.h"

#include <algorithm>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "serial-service/ports/managed_port.h"

namespace labgate::serial {
namespace {

absl::Status ValidateBaudRate(int64_t baud_rate) {
  if (baud_rate < 1 || baud_rate > kMaxBaudRate) {
    return absl::InvalidArgumentError(
        absl::StrCat("baud_rate must be between 1 and ", kMaxBaudRate, " (got ", baud_rate, ")"));
  }
  return absl::OkStatus();
}

absl::Status ValidateIdle(int64_t idle_ms) {
  if (idle_ms < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "idle_disconnect_ms must be 0 (never) or a positive number of milliseconds (got ", idle_ms,
        ")"));
  }
  return absl::OkStatus();
}

absl::StatusOr<int> DataBitsFrom(v1::DataBits value) {
  switch (value) {
    case v1::DATA_BITS_UNSPECIFIED:
    case v1::DATA_BITS_EIGHT:
      return 8;
    case v1::DATA_BITS_SEVEN:
      return 7;
    case v1::DATA_BITS_SIX:
      return 6;
    case v1::DATA_BITS_FIVE:
      return 5;
    default:
      break;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("data_bits must be one of five, six, seven, eight (or 5, 6, 7, 8); got ",
                   static_cast<int>(value)));
}

absl::StatusOr<Parity> ParityFrom(v1::Parity value) {
  switch (value) {
    case v1::PARITY_UNSPECIFIED:
    case v1::PARITY_NONE:
      return Parity::kNone;
    case v1::PARITY_ODD:
      return Parity::kOdd;
    case v1::PARITY_EVEN:
      return Parity::kEven;
    default:
      break;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("parity must be one of none, odd, even; got ", static_cast<int>(value)));
}

absl::StatusOr<int> StopBitsFrom(v1::StopBits value) {
  switch (value) {
    case v1::STOP_BITS_UNSPECIFIED:
    case v1::STOP_BITS_ONE:
      return 1;
    case v1::STOP_BITS_TWO:
      return 2;
    default:
      break;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("stop_bits must be one of one, two (or 1, 2); got ", static_cast<int>(value)));
}

absl::StatusOr<FlowControl> FlowControlFrom(v1::FlowControl value) {
  switch (value) {
    case v1::FLOW_CONTROL_UNSPECIFIED:
    case v1::FLOW_CONTROL_NONE:
      return FlowControl::kNone;
    case v1::FLOW_CONTROL_HARDWARE:
      return FlowControl::kHardware;
    case v1::FLOW_CONTROL_SOFTWARE:
      return FlowControl::kSoftware;
    default:
      break;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("flow_control must be one of none, hardware (rtscts), software (xonxoff); got ",
                   static_cast<int>(value)));
}

constexpr int kMaxPortSequences = 16;

void StepToProto(const ScriptStepSpec& step, v1::ScriptStep* out) {
  if (step.send.has_value()) out->set_send(*step.send);
  for (const std::string& pattern : step.expect) out->add_expect(pattern);
  if (step.timeout_ms.has_value()) out->set_timeout_ms(*step.timeout_ms);
  if (step.delay_ms.has_value()) out->set_delay_ms(*step.delay_ms);
  if (step.signal_dtr.has_value()) {
    out->set_signal(*step.signal_dtr ? v1::CONTROL_LINE_DTR : v1::CONTROL_LINE_RTS);
  }
  if (step.level.has_value()) out->set_level(*step.level);
  if (step.ms.has_value()) out->set_ms(*step.ms);
}

// open_port's `sequences`, each checked as the policy's are when it loads.
absl::StatusOr<std::vector<LineSequence>> SequencesFrom(
    const google::protobuf::RepeatedPtrField<v1::NamedSequence>& given) {
  if (given.size() > kMaxPortSequences) {
    return absl::InvalidArgumentError(absl::StrCat("sequences holds ", given.size(),
                                                   "; a port takes at most ", kMaxPortSequences));
  }
  std::vector<LineSequence> sequences;
  for (int i = 0; i < given.size(); ++i) {
    const v1::NamedSequence& named = given[i];
    const std::string where = absl::StrCat("sequences[", i, "]");
    if (absl::Status valid = ValidateSequenceName(named.name(), where); !valid.ok()) return valid;
    for (const LineSequence& earlier : sequences) {
      if (earlier.name == named.name()) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ": the name '", named.name(), "' is given twice"));
      }
    }
    if (named.steps_size() < 1 || named.steps_size() > static_cast<int>(kMaxSequenceSteps)) {
      return absl::InvalidArgumentError(absl::StrCat(where, " ('", named.name(), "') takes 1 to ",
                                                     kMaxSequenceSteps, " steps, not ",
                                                     named.steps_size()));
    }
    LineSequence sequence;
    sequence.name = named.name();
    for (int n = 0; n < named.steps_size(); ++n) {
      ScriptStepSpec step = StepFromProto(named.steps(n));
      if (absl::Status valid = ValidateStep(step, absl::StrCat(where, ".steps[", n, "]"));
          !valid.ok()) {
        return valid;
      }
      sequence.steps.push_back(std::move(step));
    }
    sequences.push_back(std::move(sequence));
  }
  return sequences;
}

}  // namespace

absl::Status ValidateTimeout(int64_t timeout_ms) {
  if (timeout_ms < 0 || timeout_ms > kMaxTimeoutMs) {
    return absl::InvalidArgumentError(absl::StrCat("timeout_ms must be between 0 and ",
                                                   kMaxTimeoutMs, " (got ", timeout_ms, ")"));
  }
  return absl::OkStatus();
}

absl::Status ValidateTerminator(absl::string_view terminator, absl::string_view field) {
  const bool control_only = std::all_of(terminator.begin(), terminator.end(), [](char c) {
    return static_cast<unsigned char>(c) <= 0x1F;
  });
  if (terminator.size() <= kMaxTerminatorBytes && control_only) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(field, " must be empty or at most ", kMaxTerminatorBytes,
                   " control characters (bytes 0x00-0x1F, e.g. \\n or \\r\\n); got \"",
                   absl::CHexEscape(terminator), "\""));
}

absl::Status ValidateMaxBytes(int64_t max_bytes) {
  if (max_bytes < 1 || max_bytes > kMaxTransferBytes) {
    return absl::InvalidArgumentError(absl::StrCat("max_bytes must be between 1 and ",
                                                   kMaxTransferBytes, " (got ", max_bytes, ")"));
  }
  return absl::OkStatus();
}

ScriptStepSpec StepFromProto(const v1::ScriptStep& given) {
  ScriptStepSpec step;
  if (given.has_send()) step.send = given.send();
  step.expect.assign(given.expect().begin(), given.expect().end());
  if (given.has_timeout_ms()) step.timeout_ms = given.timeout_ms();
  if (given.has_delay_ms()) step.delay_ms = given.delay_ms();
  if (given.signal() != v1::CONTROL_LINE_UNSPECIFIED) {
    step.signal_dtr = given.signal() == v1::CONTROL_LINE_DTR;
  }
  if (given.has_level()) step.level = given.level();
  if (given.has_ms()) step.ms = given.ms();
  return step;
}

absl::StatusOr<PortSettings> SettingsFromOpenRequest(const v1::OpenPortRequest& request) {
  if (request.port_name().empty()) {
    return absl::InvalidArgumentError(
        "port_name is required: a device path such as /dev/ttyUSB0, or loop://");
  }
  if (request.baud_rate() == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("baud_rate is required: a number between 1 and ", kMaxBaudRate));
  }
  if (absl::Status status = ValidateBaudRate(request.baud_rate()); !status.ok()) return status;
  PortSettings settings;
  settings.baud_rate = request.baud_rate();
  settings.timeout_ms = request.has_timeout_ms() ? request.timeout_ms() : kDefaultTimeoutMs;
  if (absl::Status status = ValidateTimeout(settings.timeout_ms); !status.ok()) return status;
  absl::StatusOr<int> data_bits = DataBitsFrom(request.data_bits());
  if (!data_bits.ok()) return data_bits.status();
  settings.data_bits = *data_bits;
  absl::StatusOr<Parity> parity = ParityFrom(request.parity());
  if (!parity.ok()) return parity.status();
  settings.parity = *parity;
  absl::StatusOr<int> stop_bits = StopBitsFrom(request.stop_bits());
  if (!stop_bits.ok()) return stop_bits.status();
  settings.stop_bits = *stop_bits;
  absl::StatusOr<FlowControl> flow = FlowControlFrom(request.flow_control());
  if (!flow.ok()) return flow.status();
  settings.flow_control = *flow;
  if (absl::Status status = ValidateTerminator(request.terminator(), "terminator"); !status.ok()) {
    return status;
  }
  settings.terminator = request.terminator();
  settings.session_id = request.session_id();
  settings.idle_disconnect_ms = request.idle_disconnect_ms();
  if (absl::Status status = ValidateIdle(settings.idle_disconnect_ms); !status.ok()) return status;
  absl::StatusOr<std::vector<LineSequence>> sequences = SequencesFrom(request.sequences());
  if (!sequences.ok()) return sequences.status();
  settings.sequences = *std::move(sequences);
  return settings;
}

absl::StatusOr<PortSettings> ApplyReconfigure(const PortSettings& current,
                                              const v1::ReconfigurePortRequest& request) {
  PortSettings settings = current;
  if (request.has_baud_rate()) {
    if (absl::Status status = ValidateBaudRate(request.baud_rate()); !status.ok()) return status;
    settings.baud_rate = request.baud_rate();
  }
  if (request.has_timeout_ms()) {
    if (absl::Status status = ValidateTimeout(request.timeout_ms()); !status.ok()) return status;
    settings.timeout_ms = request.timeout_ms();
  }
  if (request.has_data_bits()) {
    absl::StatusOr<int> data_bits = DataBitsFrom(request.data_bits());
    if (!data_bits.ok()) return data_bits.status();
    settings.data_bits = *data_bits;
  }
  if (request.has_parity()) {
    absl::StatusOr<Parity> parity = ParityFrom(request.parity());
    if (!parity.ok()) return parity.status();
    settings.parity = *parity;
  }
  if (request.has_stop_bits()) {
    absl::StatusOr<int> stop_bits = StopBitsFrom(request.stop_bits());
    if (!stop_bits.ok()) return stop_bits.status();
    settings.stop_bits = *stop_bits;
  }
  if (request.has_flow_control()) {
    absl::StatusOr<FlowControl> flow = FlowControlFrom(request.flow_control());
    if (!flow.ok()) return flow.status();
    settings.flow_control = *flow;
  }
  if (request.has_terminator()) {
    if (absl::Status status = ValidateTerminator(request.terminator(), "terminator");
        !status.ok()) {
      return status;
    }
    settings.terminator = request.terminator();
  }
  if (request.has_session_id()) settings.session_id = request.session_id();
  if (request.has_idle_disconnect_ms()) {
    if (absl::Status status = ValidateIdle(request.idle_disconnect_ms()); !status.ok()) {
      return status;
    }
    settings.idle_disconnect_ms = request.idle_disconnect_ms();
  }
  return settings;
}

void SettingsToProto(const PortSettings& settings, v1::PortSettings* out) {
  out->set_baud_rate(settings.baud_rate);
  if (!settings.session_id.empty()) out->set_session_id(settings.session_id);
  for (const LineSequence& sequence : settings.sequences) {
    v1::NamedSequence* named = out->add_sequences();
    named->set_name(sequence.name);
    for (const ScriptStepSpec& step : sequence.steps) StepToProto(step, named->add_steps());
  }
  out->set_timeout_ms(settings.timeout_ms);
  out->set_data_bits(static_cast<v1::DataBits>(settings.data_bits));
  switch (settings.parity) {
    case Parity::kNone:
      out->set_parity(v1::PARITY_NONE);
      break;
    case Parity::kOdd:
      out->set_parity(v1::PARITY_ODD);
      break;
    case Parity::kEven:
      out->set_parity(v1::PARITY_EVEN);
      break;
  }
  out->set_stop_bits(settings.stop_bits == 2 ? v1::STOP_BITS_TWO : v1::STOP_BITS_ONE);
  switch (settings.flow_control) {
    case FlowControl::kNone:
      out->set_flow_control(v1::FLOW_CONTROL_NONE);
      break;
    case FlowControl::kHardware:
      out->set_flow_control(v1::FLOW_CONTROL_HARDWARE);
      break;
    case FlowControl::kSoftware:
      out->set_flow_control(v1::FLOW_CONTROL_SOFTWARE);
      break;
  }
  out->set_terminator(settings.terminator);
  out->set_idle_disconnect_ms(settings.idle_disconnect_ms);
}

v1::Transport TransportToProto(Transport transport) {
  switch (transport) {
    case Transport::kUsb:
      return v1::TRANSPORT_USB;
    case Transport::kBluetooth:
      return v1::TRANSPORT_BLUETOOTH;
    case Transport::kPci:
      return v1::TRANSPORT_PCI;
    case Transport::kLoopback:
      return v1::TRANSPORT_LOOPBACK;
    case Transport::kUnknown:
      break;
  }
  return v1::TRANSPORT_UNSPECIFIED;
}

}  // namespace labgate::serial
