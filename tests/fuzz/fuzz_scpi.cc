// SCPI reading on arbitrary lines: ParseScpiLine, ParseQuantity on every parameter, and a
// header pattern on every resolved header. Invariants:
// - a parsed line has at least one command, each with its text and (unless common) a path;
// - a quantity that parses is finite;
// - parsing is deterministic: the same line gives the same headers twice.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "serial-service/limits/scpi_header_pattern.h"
#include "serial-service/limits/scpi_message.h"
#include "serial-service/limits/scpi_quantity.h"
#include "tests/fuzz/fuzz_check.h"

using labgate::serial::ParseQuantity;
using labgate::serial::ParseScpiLine;
using labgate::serial::QuantityRange;
using labgate::serial::ScpiCommand;
using labgate::serial::ScpiHeaderPattern;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const ScpiHeaderPattern* volt = new ScpiHeaderPattern(
      *ScpiHeaderPattern::Parse("[SOURce#:]VOLTage[:LEVel][:IMMediate][:AMPLitude]"));
  const std::string line(reinterpret_cast<const char*>(data), size);
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
    for (const std::string& parameter : command.parameters) {
      FUZZ_CHECK(!parameter.empty());
      for (const char* unit : {"V", "A", "HZ", "OHM"}) {
        auto value = ParseQuantity(parameter, unit, range);
        if (value.ok()) FUZZ_CHECK(std::isfinite(*value));
      }
    }
  }
  return 0;
}
