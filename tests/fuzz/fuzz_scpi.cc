// SCPI reading on arbitrary lines: ParseScpiLine, ParseQuantity on every parameter, a header
// pattern on every resolved header, and a power supply's QuantityLimits on the whole input.
// Invariants:
// - a parsed line has at least one command, each with its text and a path;
// - a quantity that parses is finite;
// - parsing is deterministic: the same line gives the same headers twice;
// - limits answer OK or PERMISSION_DENIED, never anything else, and a line that sets a voltage
//   above the limit is never allowed.
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "serial-service/limits/quantity_limits.h"
#include "serial-service/limits/scpi_header_pattern.h"
#include "serial-service/limits/scpi_message.h"
#include "serial-service/limits/scpi_quantity.h"
#include "tests/fuzz/fuzz_check.h"

using labgate::serial::LimitRule;
using labgate::serial::LimitsSpec;
using labgate::serial::LimitState;
using labgate::serial::ListSpec;
using labgate::serial::ParseQuantity;
using labgate::serial::ParseScpiLine;
using labgate::serial::QuantityLimits;
using labgate::serial::QuantityRange;
using labgate::serial::QuantitySpec;
using labgate::serial::ScpiCommand;
using labgate::serial::ScpiHeaderPattern;

namespace {

const QuantityLimits& PowerSupplyLimits() {
  static const QuantityLimits* limits = [] {
    LimitsSpec spec;
    QuantitySpec voltage{"voltage", "V", {0, 30, 0}, {}, 0, nullptr, "", {}};
    voltage.headers.push_back(
        *ScpiHeaderPattern::Parse("[SOURce#:]VOLTage[:LEVel][:IMMediate][:AMPLitude]"));
    spec.quantities.push_back(voltage);
    spec.lists.push_back(ListSpec{
        *ScpiHeaderPattern::Parse("APPLy"), 0, {{"CH1", 1}, {"CH2", 2}}, {{1, "voltage"}}});
    LimitRule max;
    max.name = "max-voltage";
    max.quantity = "voltage";
    max.max = 5;
    max.max_step = 2;
    spec.rules.push_back(max);
    return new QuantityLimits(*QuantityLimits::Create(spec));
  }();
  return *limits;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const ScpiHeaderPattern* volt = new ScpiHeaderPattern(
      *ScpiHeaderPattern::Parse("[SOURce#:]VOLTage[:LEVel][:IMMediate][:AMPLitude]"));
  const std::string line(reinterpret_cast<const char*>(data), size);
  LimitState state;
  const auto verdict =
      PowerSupplyLimits().Check(line, state, std::chrono::steady_clock::now(), "psu");
  FUZZ_CHECK(verdict.status.ok() || absl::IsPermissionDenied(verdict.status));
  if (verdict.status.ok()) {
    for (const auto& setting : verdict.settings) FUZZ_CHECK(setting.value <= 5);
  }
  auto parsed = ParseScpiLine(line);
  if (!parsed.ok()) return 0;
  FUZZ_CHECK(!parsed->empty());
  auto again = ParseScpiLine(line);
  FUZZ_CHECK(again.ok() && again->size() == parsed->size());
  QuantityRange range;
  range.min = 0;
  range.max = 30;
  for (size_t i = 0; i < parsed->size(); ++i) {
    const ScpiCommand& command = (*parsed)[i];
    FUZZ_CHECK(!command.text.empty());
    FUZZ_CHECK(!command.nodes.empty());
    FUZZ_CHECK((*again)[i].nodes == command.nodes);
    if (!command.common) volt->Matches(command.nodes);
    for (absl::string_view parameter : command.parameters) {
      FUZZ_CHECK(!parameter.empty());
      for (const char* unit : {"V", "A", "HZ", "OHM"}) {
        auto value = ParseQuantity(parameter, unit, range);
        if (value.ok()) FUZZ_CHECK(std::isfinite(*value));
      }
    }
  }
  return 0;
}
