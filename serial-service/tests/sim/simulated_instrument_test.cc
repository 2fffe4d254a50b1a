// A power supply simulated from a profile's simulation section, driven line by line with a
// clock the test moves: identification, setters and queries through SCPI headers, the error
// queue, several commands per line, delays, noise, and a reboot on a DTR pulse.
#include "serial-service/sim/simulated_instrument.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "absl/strings/numbers.h"

namespace labgate::serial {
namespace {

using Clock = SimulatedInstrument::Clock;
using std::chrono::milliseconds;

SimulationSpec::Quantity Quantity(const std::string& name, const std::string& unit, double max,
                                  const char* header) {
  SimulationSpec::Quantity quantity;
  quantity.name = name;
  quantity.unit = unit;
  quantity.range.min = 0;
  quantity.range.max = max;
  quantity.headers.push_back(ScpiHeaderPattern::Parse(header).value());
  return quantity;
}

SimulationSpec::Response Response(const char* match, const char* reply, int64_t delay_ms = 0) {
  SimulationSpec::Response response;
  response.match_text = match;
  response.match = CompilePattern(match, PatternInput::kUtf8, "test").value();
  response.reply = reply;
  response.delay_ms = delay_ms;
  return response;
}

SimulationSpec Supply() {
  SimulationSpec spec;
  spec.serial = "PSU0042";
  spec.banner = "SIM-PSU ready\n";
  spec.responses.push_back(Response("\\*IDN\\?", "LABGATE,SIM-PSU,{serial},1.0"));
  spec.responses.push_back(Response("(?i)SLOW\\?", "done at {voltage} V", 50));
  spec.quantities.push_back(
      Quantity("voltage", "V", 30, "[SOURce#:]VOLTage[:LEVel][:IMMediate][:AMPLitude]"));
  spec.quantities.push_back(
      Quantity("current", "A", 3, "[SOURce#:]CURRent[:LEVel][:IMMediate][:AMPLitude]"));
  SimulationSpec::Switch output;
  output.name = "output";
  output.headers.push_back(ScpiHeaderPattern::Parse("OUTPut#[:STATe]").value());
  spec.switches.push_back(output);
  spec.reboot_on_dtr_pulse = true;
  return spec;
}

class SimulatedInstrumentTest : public ::testing::Test {
 protected:
  // Sends `line` and returns what is due right away.
  std::string Ask(const std::string& line) {
    sim_.Receive(line + "\n", now_);
    return sim_.TakeDue(now_);
  }

  Clock::time_point now_ = Clock::now();
  SimulatedInstrument sim_{Supply()};
};

TEST_F(SimulatedInstrumentTest, ItIdentifiesItselfAndKeepsWhatItIsSet) {
  ASSERT_TRUE(sim_.Open(now_).ok());
  EXPECT_EQ(sim_.TakeDue(now_), "SIM-PSU ready\n");
  EXPECT_EQ(Ask("*IDN?"), "LABGATE,SIM-PSU,PSU0042,1.0\n");
  EXPECT_EQ(Ask("VOLT 4.9"), "");
  EXPECT_EQ(Ask("VOLT?"), "4.9\n");
  EXPECT_EQ(Ask("MEAS:VOLT?"), "4.9\n");
  EXPECT_EQ(Ask("volt 3300mV"), "");
  EXPECT_EQ(Ask(":SOURce1:VOLTage:LEVel?"), "3.3\n");
  EXPECT_EQ(Ask("SOUR2:VOLT 12;CURR 0.5;VOLT?;CURR?"), "12;0.5\n")
      << "several commands per line, each after the first on SOUR2's path (SCPI-99 6.2), the "
         "replies joined with ';'";
  EXPECT_EQ(sim_.Value("current", 2), 0.5);
  EXPECT_EQ(sim_.Value("voltage", 2), 12);
  EXPECT_EQ(sim_.Value("voltage", 1), 3.3);
  EXPECT_EQ(sim_.ErrorCount(), 0u);
}

TEST_F(SimulatedInstrumentTest, ItsOutputIsASwitchThatIsSetAndAnswered) {
  EXPECT_EQ(Ask("OUTP?"), "0\n");
  EXPECT_EQ(Ask("OUTP ON"), "");
  EXPECT_EQ(Ask("OUTPut:STATe?"), "1\n");
  EXPECT_TRUE(sim_.SwitchOn("output"));
  EXPECT_EQ(Ask("OUTP2 1;OUTP2?"), "1\n");
  EXPECT_EQ(Ask("outp off"), "");
  EXPECT_EQ(Ask("OUTP?;OUTP2?"), "0;1\n");
  EXPECT_EQ(Ask("OUTP maybe"), "");
  EXPECT_EQ(Ask("SYST:ERR?"), "-224,\"Illegal parameter value\"\n");
  sim_.SetDtr(false, now_);
  sim_.SetDtr(true, now_);
  EXPECT_FALSE(sim_.SwitchOn("output", 2)) << "a reboot turns it off again";
}

TEST_F(SimulatedInstrumentTest, WhatItCannotDoGoesToItsErrorQueue) {
  EXPECT_EQ(Ask("VOLT 99"), "");
  EXPECT_EQ(Ask("VOLT?"), "0\n") << "out of its range: not applied";
  EXPECT_EQ(Ask("FOO 1"), "");
  EXPECT_EQ(Ask("CURR lots"), "");
  EXPECT_EQ(Ask("VOLT 'unclosed"), "");
  EXPECT_EQ(sim_.ErrorCount(), 4u);
  EXPECT_EQ(Ask("SYST:ERR?"), "-222,\"Data out of range\"\n");
  EXPECT_EQ(Ask("SYSTem:ERRor:NEXT?"), "-113,\"Undefined header\"\n");
  EXPECT_EQ(Ask("SYST:ERR?"), "-224,\"Illegal parameter value\"\n");
  EXPECT_EQ(Ask("SYST:ERR?"), "-102,\"Syntax error\"\n");
  EXPECT_EQ(Ask("SYST:ERR?"), "0,\"No error\"\n");
  for (int i = 0; i < 40; ++i) Ask("FOO");
  EXPECT_EQ(sim_.ErrorCount(), SimulationSpec::kMaxErrors) << "the oldest go first";
  EXPECT_EQ(Ask("*CLS"), "");
  EXPECT_EQ(sim_.ErrorCount(), 0u);
}

TEST_F(SimulatedInstrumentTest, AResponseWithADelayIsDueOnlyThen) {
  Ask("VOLT 2");
  EXPECT_EQ(Ask("slow?"), "");
  EXPECT_EQ(sim_.NextDue(), now_ + milliseconds(50));
  EXPECT_EQ(sim_.TakeDue(now_ + milliseconds(49)), "");
  EXPECT_EQ(sim_.TakeDue(now_ + milliseconds(50)), "done at 2 V\n");
  EXPECT_FALSE(sim_.NextDue().has_value());
}

TEST_F(SimulatedInstrumentTest, ADtrPulseRebootsItWithItsBanner) {
  ASSERT_TRUE(sim_.Open(now_).ok());
  sim_.TakeDue(now_);
  Ask("VOLT 5");
  sim_.SetDtr(false, now_);
  EXPECT_EQ(Ask("VOLT 7"), "") << "held in reset it hears nothing";
  sim_.SetDtr(true, now_);
  EXPECT_EQ(sim_.TakeDue(now_), "SIM-PSU ready\n");
  EXPECT_EQ(Ask("VOLT?"), "0\n") << "back to its initial state";
  sim_.SetDtr(true, now_);
  EXPECT_EQ(sim_.TakeDue(now_), "") << "asserting an asserted line is no pulse";
}

TEST(SimulatedInstrumentNoiseTest, ReadingsVaryWithinTheNoiseTheProfileAllows) {
  SimulationSpec spec = Supply();
  spec.quantities[0].noise = 0.01;
  SimulatedInstrument sim(spec, 7);
  const auto now = Clock::now();
  sim.Receive("VOLT 5\n", now);
  std::set<std::string> seen;
  for (int i = 0; i < 200; ++i) {
    sim.Receive("MEAS:VOLT?\n", now);
    std::string reply = sim.TakeDue(now);
    ASSERT_FALSE(reply.empty());
    reply.pop_back();
    double value = 0;
    ASSERT_TRUE(absl::SimpleAtod(reply, &value)) << reply;
    EXPECT_GE(value, 4.99);
    EXPECT_LE(value, 5.01);
    seen.insert(reply);
  }
  EXPECT_GT(seen.size(), 10u) << "it is noise, not a constant";
}

}  // namespace
}  // namespace labgate::serial
