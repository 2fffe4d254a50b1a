// What the quantity limits cost per written line (issue target: at most 5 us at p99 for a line of
// up to 256 bytes): QuantityLimits::Check on a power supply's limits, each sample one call timed
// alone, so the percentiles are per line.
//   build/bench/policy/labgate_quantity_limits_bench [samples]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "serial-service/limits/quantity_limits.h"

namespace {

using labgate::serial::LimitRule;
using labgate::serial::LimitsSpec;
using labgate::serial::LimitState;
using labgate::serial::ListSpec;
using labgate::serial::QuantityLimits;
using labgate::serial::QuantitySpec;
using labgate::serial::ScpiHeaderPattern;
using Clock = std::chrono::steady_clock;

LimitsSpec PowerSupply() {
  LimitsSpec spec;
  QuantitySpec voltage{"voltage", "V", {0, 30, 0}, {}, 0, nullptr, "", {}};
  voltage.headers.push_back(
      *ScpiHeaderPattern::Parse("[SOURce#:]VOLTage[:LEVel][:IMMediate][:AMPLitude]"));
  QuantitySpec current{"current", "A", {0, 3, 0.1}, {}, 0, nullptr, "", {}};
  current.headers.push_back(
      *ScpiHeaderPattern::Parse("[SOURce#:]CURRent[:LEVel][:IMMediate][:AMPLitude]"));
  spec.quantities = {voltage, current};
  spec.lists.push_back(ListSpec{*ScpiHeaderPattern::Parse("APPLy"),
                                0,
                                {{"CH1", 1}, {"CH2", 2}, {"CH3", 3}},
                                {{1, "voltage"}, {2, "current"}}});
  LimitRule max_voltage;
  max_voltage.name = "max-voltage";
  max_voltage.quantity = "voltage";
  max_voltage.max = 5;
  max_voltage.max_step = 5;
  LimitRule max_current;
  max_current.name = "max-current";
  max_current.quantity = "current";
  max_current.max = 1;
  max_current.confirm_above = 0.5;
  spec.rules = {max_voltage, max_current};
  return spec;
}

// A long-form command chain repeated up to `bytes`, cut at a command boundary.
std::string Chain(size_t bytes, const std::string& last) {
  const std::string unit =
      ":SOURce1:VOLTage:LEVel:IMMediate:AMPLitude 4.9;:SOURce1:CURRent:LEVel 0.4;";
  std::string line;
  while (line.size() + unit.size() + last.size() <= bytes) line += unit;
  return line + last;
}

}  // namespace

int main(int argc, char** argv) {
  const int samples = argc > 1 ? std::atoi(argv[1]) : 200000;
  const QuantityLimits limits = *QuantityLimits::Create(PowerSupply());
  LimitState state;
  QuantityLimits::Commit({{"voltage", 1, 4.0}}, &state, Clock::now());
  const std::vector<std::pair<std::string, std::string>> lines = {
      {"short, allowed", "VOLT 4.9"},
      {"list, allowed", "APPL CH1,4.5,0.4"},
      {"256 B chain, allowed", Chain(256, ":OUTPut:STATe ON")},
      {"256 B chain, refused at the end", Chain(256, "VOLT 12000mV")},
      {"256 B, unreadable", "VOLT '" + std::string(249, 'x')},
  };
  std::printf("%-34s %6s %9s %9s %9s\n", "line", "bytes", "p50 us", "p99 us", "max us");
  for (const auto& [name, line] : lines) {
    std::vector<double> us;
    us.reserve(static_cast<size_t>(samples));
    size_t refused = 0;
    for (int i = 0; i < samples; ++i) {
      const auto start = Clock::now();
      const auto verdict = limits.Check(line, state, start, "psu");
      const auto end = Clock::now();
      refused += verdict.status.ok() ? 0 : 1;
      us.push_back(std::chrono::duration<double, std::micro>(end - start).count());
    }
    std::sort(us.begin(), us.end());
    auto at = [&](double p) {
      return us[static_cast<size_t>(p * static_cast<double>(us.size() - 1))];
    };
    std::printf("%-34s %6zu %9.2f %9.2f %9.2f%s\n", name.c_str(), line.size(), at(0.5), at(0.99),
                us.back(), refused > 0 ? "  (refused)" : "");
  }
  return 0;
}
