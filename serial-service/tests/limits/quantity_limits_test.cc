// Quantity limits on a power supply's commands: every header form, suffixes, lists, ';'
// chains, step and ramp rules against the last accepted value, confirmation above a level,
// commands that cannot be verified, and a device that does not speak SCPI.
#include "serial-service/limits/quantity_limits.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/match.h"

namespace labgate::serial {
namespace {

using Clock = std::chrono::steady_clock;

ScpiHeaderPattern Header(const char* text) {
  absl::StatusOr<ScpiHeaderPattern> header = ScpiHeaderPattern::Parse(text);
  EXPECT_TRUE(header.ok()) << header.status();
  return *header;
}

LimitsSpec PowerSupply() {
  LimitsSpec spec;
  QuantitySpec voltage;
  voltage.name = "voltage";
  voltage.unit = "V";
  voltage.range = {0, 30, 0};
  voltage.headers.push_back(Header("[SOURce#:]VOLTage[:LEVel][:IMMediate][:AMPLitude]"));
  QuantitySpec current;
  current.name = "current";
  current.unit = "A";
  current.range = {0, 3, 0.1};
  current.headers.push_back(Header("[SOURce#:]CURRent[:LEVel][:IMMediate][:AMPLitude]"));
  spec.quantities = {voltage, current};
  ListSpec apply{
      Header("APPLy"), 0, {{"CH1", 1}, {"CH2", 2}, {"CH3", 3}}, {{1, "voltage"}, {2, "current"}}};
  spec.lists.push_back(apply);
  LimitRule max_voltage;
  max_voltage.name = "max-voltage";
  max_voltage.quantity = "voltage";
  max_voltage.max = 5;
  max_voltage.min = 0;
  LimitRule step_voltage;
  step_voltage.name = "step-voltage";
  step_voltage.quantity = "voltage";
  step_voltage.max_step = 1;
  LimitRule max_current;
  max_current.name = "max-current";
  max_current.quantity = "current";
  max_current.channel = 1;
  max_current.max = 1;
  max_current.confirm_above = 0.5;
  spec.rules = {max_voltage, step_voltage, max_current};
  return spec;
}

class QuantityLimitsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<QuantityLimits> limits = QuantityLimits::Create(PowerSupply());
    ASSERT_TRUE(limits.ok()) << limits.status();
    limits_ = std::make_unique<QuantityLimits>(*std::move(limits));
  }
  LimitVerdict Check(const std::string& line) {
    return limits_->Check(line, state_, now_, "psu-2");
  }
  // Checks and, when allowed, commits, as a write that went through.
  LimitVerdict Write(const std::string& line) {
    LimitVerdict verdict = Check(line);
    if (verdict.status.ok()) QuantityLimits::Commit(verdict.settings, &state_, now_);
    return verdict;
  }

  std::unique_ptr<QuantityLimits> limits_;
  LimitState state_;
  Clock::time_point now_ = Clock::now();
};

TEST_F(QuantityLimitsTest, EveryWayOfSayingTwelveVoltsIsRefusedAndFourPointNinePasses) {
  for (const char* line : {"VOLT 12", "volt 12000mV", "SOUR1:VOLT:LEV:IMM:AMPL 12", "VOLTage 12 V",
                           "APPL CH1,12,0.5", "apply ch1, 12V, 0.5A", ":SOUR:VOLT 1.2E+1",
                           "*CLS;VOLT 12", "OUTP OFF;SOUR:VOLT 12", "VOLT 0.012KV"}) {
    LimitVerdict verdict = Check(line);
    EXPECT_EQ(verdict.status.code(), absl::StatusCode::kPermissionDenied) << line;
    EXPECT_EQ(verdict.status.message(), "12 V exceeds max-voltage (5 V) on psu-2 channel 1")
        << line;
  }
  LimitVerdict ok = Write("VOLT 4.9");
  EXPECT_TRUE(ok.status.ok()) << ok.status;
  ASSERT_EQ(ok.settings.size(), 1u);
  EXPECT_EQ(ok.settings[0].quantity, "voltage");
  EXPECT_EQ(ok.settings[0].value, 4.9);
  EXPECT_TRUE(Check("VOLT 5000mV").status.ok()) << "exactly 5 V is at the limit, not over";
}

TEST_F(QuantityLimitsTest, WhatAWriteSetsIsDescribedWithUnitsAndChannels) {
  LimitVerdict verdict = Check("APPL CH2,1.5,0.25;VOLT 900mV");
  ASSERT_TRUE(verdict.status.ok()) << verdict.status;
  EXPECT_EQ(limits_->Describe(verdict.settings, "psu-2"),
            "voltage 1.5 V on psu-2 channel 2; current 0.25 A on psu-2 channel 2; voltage 0.9 V "
            "on psu-2 channel 1");
  EXPECT_EQ(limits_->Describe({}, "psu-2"), "");
}

TEST_F(QuantityLimitsTest, StepsCountFromTheLastValueAcceptedOnThatChannel) {
  ASSERT_TRUE(Write("VOLT 1").status.ok());
  LimitVerdict step = Check("VOLT 3");
  EXPECT_EQ(step.status.message(),
            "a step of 2 V (from 1 V to 3 V) exceeds step-voltage (1 V) on psu-2 channel 1");
  EXPECT_TRUE(Check("VOLT 2").status.ok());
  // Within one write, each value is a step from the one before it.
  EXPECT_TRUE(Check("VOLT 2;VOLT 3").status.ok());
  EXPECT_EQ(Check("VOLT 2;VOLT 4").status.code(), absl::StatusCode::kPermissionDenied);
  // Another channel has its own last value: none yet, so only max and min apply there.
  EXPECT_TRUE(Check("SOUR2:VOLT 4").status.ok());
  EXPECT_EQ(Check("SOUR2:VOLT 6").status.message(),
            "6 V exceeds max-voltage (5 V) on psu-2 channel 2");
  EXPECT_EQ(Check("VOLT -1").status.message(),
            "-1 V is below max-voltage (0 V) on psu-2 channel 1");
}

TEST_F(QuantityLimitsTest, MinMaxAndDefResolveThroughTheDeclaredRange) {
  EXPECT_EQ(Check("VOLT MAX").status.message(),
            "30 V exceeds max-voltage (5 V) on psu-2 channel 1");
  EXPECT_TRUE(Check("VOLT MIN").status.ok());
  EXPECT_TRUE(Check("CURR DEF").status.ok());
}

TEST_F(QuantityLimitsTest, AboveTheConfirmLevelAPersonDecides) {
  LimitVerdict asked = Check("CURR 0.8");
  EXPECT_TRUE(asked.status.ok());
  EXPECT_EQ(asked.confirm_rule.value_or("none"), "max-current");
  EXPECT_EQ(asked.confirm_reason, "0.8 A is above max-current (0.5 A) on psu-2 channel 1");
  EXPECT_FALSE(Check("CURR 500mA").confirm_rule.has_value()) << "0.5 A is not above 0.5 A";
  EXPECT_EQ(Check("CURR 2").status.message(), "2 A exceeds max-current (1 A) on psu-2 channel 1");
  EXPECT_TRUE(Check("SOUR2:CURR 2").status.ok()) << "the current rule is on channel 1 only";
  EXPECT_EQ(Check("APPL CH1,4,1.5").status.message(),
            "1.5 A exceeds max-current (1 A) on psu-2 channel 1");
}

TEST_F(QuantityLimitsTest, ACommandThatTouchesALimitButCannotBeReadIsRefused) {
  LimitVerdict word = Check("VOLT high");
  EXPECT_EQ(word.status.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(word.status.message(),
            "cannot verify 'VOLT high' against max-voltage, step-voltage: 'high' is not a "
            "quantity in V: no number");
  EXPECT_EQ(Check("VOLT 5 A").status.code(), absl::StatusCode::kPermissionDenied);
  LimitVerdict list = Check("APPL 12,0.5");
  EXPECT_EQ(list.status.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(list.status.message(),
            "cannot verify 'APPL 12,0.5' against max-voltage, step-voltage: '12' is not a channel "
            "(APPLy takes CH1, CH2, CH3)");
  EXPECT_TRUE(Check("APPL").status.ok()) << "no values: nothing set";
  EXPECT_TRUE(Check("APPL CH2,4").status.ok()) << "a list may stop early";
  LimitVerdict garbled = Check("VOLT 'unclosed");
  EXPECT_EQ(garbled.status.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(garbled.status.message().find("cannot verify 'VOLT 'unclosed' against max-voltage"),
            std::string::npos)
      << garbled.status;
  // Nothing limited is touched: queries, common commands, other headers, a command naming
  // VOLTage with no value.
  for (const char* line : {"VOLT?", "MEAS:VOLT?", "*IDN?", "OUTP ON", "SYST:BEEP", "VOLT:PROT:CLE",
                           "DISP:TEXT 'VOLT 99'"}) {
    LimitVerdict verdict = Check(line);
    EXPECT_TRUE(verdict.status.ok()) << line << ": " << verdict.status;
    EXPECT_TRUE(verdict.settings.empty()) << line;
  }
  // Every line of a write is read.
  EXPECT_EQ(Check("VOLT 1\r\nVOLT 12\r\n").status.code(), absl::StatusCode::kPermissionDenied);
}

TEST_F(QuantityLimitsTest, AValueOutsideTheQuantitysDeclaredRangeIsRefusedWhereNoRuleCovers) {
  // max-current binds channel 1 only; channel 2's current is bounded by its range (0 to 3 A).
  LimitVerdict over = Check("SOUR2:CURR 4");
  EXPECT_EQ(over.status.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(over.status.message(),
            "4 A is outside current's declared range (0 A to 3 A) on psu-2 channel 2");
  EXPECT_EQ(Check("SOUR2:CURR -0.5").status.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(Check("SOUR2:CURR 2.5").status.ok());
  // A rule that refuses first is the one named.
  EXPECT_EQ(Check("VOLT -1").status.message(),
            "-1 V is below max-voltage (0 V) on psu-2 channel 1");
}

TEST_F(QuantityLimitsTest, RecallingAStoredSetupIsRefusedOnALimitedInstrument) {
  for (const char* write : {"*RCL 1", "*rcl 2", "OUTP OFF;*RCL 1"}) {
    LimitVerdict verdict = Check(write);
    EXPECT_EQ(verdict.status.code(), absl::StatusCode::kPermissionDenied) << write;
    EXPECT_NE(verdict.status.message().find(
                  "against max-voltage, step-voltage, max-current: it recalls a stored setup, "
                  "whose values labgate cannot see"),
              std::string::npos)
        << verdict.status;
  }
  EXPECT_TRUE(Check("*SAV 1").status.ok()) << "storing sets nothing";
}

TEST_F(QuantityLimitsTest, ALoneCarriageReturnEndsALineSoTheCommandAfterItIsRead) {
  for (const char* write : {"*CLS\rVOLT 30", "OUTP ON\rVOLT 30"}) {
    LimitVerdict verdict = Check(write);
    EXPECT_EQ(verdict.status.code(), absl::StatusCode::kPermissionDenied) << write;
    EXPECT_EQ(verdict.status.message(), "30 V exceeds max-voltage (5 V) on psu-2 channel 1")
        << write;
  }
  LimitVerdict crlf = Write("VOLT 1\r\nVOLT 2\r\n");
  EXPECT_TRUE(crlf.status.ok()) << crlf.status << ": \\r\\n is one line end";
  ASSERT_EQ(crlf.settings.size(), 2u);
  EXPECT_EQ(crlf.settings[1].value, 2);
}

TEST_F(QuantityLimitsTest, ARampRuleComparesTheChangeWithTheTimeSinceTheLastValue) {
  LimitsSpec spec = PowerSupply();
  spec.rules.clear();
  LimitRule ramp;
  ramp.name = "ramp-voltage";
  ramp.quantity = "voltage";
  ramp.ramp_per_s = 1;
  spec.rules.push_back(ramp);
  absl::StatusOr<QuantityLimits> limits = QuantityLimits::Create(spec);
  ASSERT_TRUE(limits.ok());
  LimitState state;
  const Clock::time_point start = Clock::now();
  QuantityLimits::Commit({{"voltage", 1, 1.0}}, &state, start);
  LimitVerdict fast = limits->Check("VOLT 2", state, start + std::chrono::milliseconds(500), "psu");
  EXPECT_EQ(fast.status.message(),
            "changing 1 V in 0.5 s exceeds ramp-voltage (1 V per second) on psu channel 1");
  EXPECT_TRUE(limits->Check("VOLT 2", state, start + std::chrono::seconds(2), "psu").status.ok());
  EXPECT_EQ(limits->Check("VOLT 1.5;VOLT 1.6", state, start + std::chrono::seconds(2), "psu")
                .status.code(),
            absl::StatusCode::kPermissionDenied)
      << "the second change comes no time after the first";
}

// A device without SCPI whose voltage is set as `pattern` reads, at most `max` volts.
LimitsSpec PatternVoltage(const std::string& pattern, double max) {
  LimitsSpec spec;
  QuantitySpec voltage;
  voltage.name = "voltage";
  voltage.unit = "V";
  voltage.pattern_text = pattern;
  voltage.pattern = *CompilePattern(voltage.pattern_text, PatternInput::kUtf8, "test");
  spec.quantities.push_back(voltage);
  LimitRule max_voltage;
  max_voltage.name = "max-voltage";
  max_voltage.quantity = "voltage";
  max_voltage.max = max;
  spec.rules.push_back(max_voltage);
  return spec;
}

TEST(QuantityLimitsPatternTest, ADeviceWithoutScpiIsReadThroughItsPattern) {
  const LimitsSpec spec = PatternVoltage("^SET (?P<channel>\\d+) (?P<value>\\S+)$", 5);
  absl::StatusOr<QuantityLimits> limits = QuantityLimits::Create(spec);
  ASSERT_TRUE(limits.ok()) << limits.status();
  LimitState state;
  EXPECT_EQ(limits->Check("SET 2 12", state, Clock::now(), "bench-psu").status.message(),
            "12 V exceeds max-voltage (5 V) on bench-psu channel 2");
  EXPECT_TRUE(limits->Check("SET 1 4500mV", state, Clock::now(), "bench-psu").status.ok());
  EXPECT_EQ(limits->Check("SET 1 lots", state, Clock::now(), "bench-psu").status.code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(limits->Check("STATUS", state, Clock::now(), "bench-psu").status.ok());
  EXPECT_TRUE(limits->Check("VOLT 'x", state, Clock::now(), "bench-psu").status.ok())
      << "no SCPI declared: lines are only matched against the pattern";
}

// A supply sets its voltage in more ways than the profile declares: a triggered level, a list,
// a stored setup. Each names VOLTage (or recalls), so none passes unread.
TEST_F(QuantityLimitsTest, UndeclaredCommandsNamingALimitedQuantityAreRefused) {
  for (const char* line : {"VOLT:TRIG 35", "SOUR2:VOLT:LEV:TRIG:AMPL 35", "LIST:VOLT 1,35",
                           "VOLT:PROT 40", "CURR:PROT 5", "volt:step 10"}) {
    LimitVerdict verdict = Check(line);
    EXPECT_EQ(verdict.status.code(), absl::StatusCode::kPermissionDenied) << line;
    EXPECT_TRUE(absl::StrContains(verdict.status.message(), "is not a header the profile declares"))
        << line << ": " << verdict.status;
  }
  EXPECT_TRUE(absl::StrContains(Check("VOLT:TRIG 35").status.message(),
                                "cannot verify 'VOLT:TRIG 35' against max-voltage, step-voltage: "
                                "it names VOLTage"))
      << Check("VOLT:TRIG 35").status;
  for (const char* line : {"MEM:RCL 1", "SYST:REC 2", "*RCL 3"}) {
    LimitVerdict verdict = Check(line);
    EXPECT_EQ(verdict.status.code(), absl::StatusCode::kPermissionDenied) << line;
    EXPECT_TRUE(absl::StrContains(verdict.status.message(), "recalls a stored setup"))
        << line << ": " << verdict.status;
  }

  // What the profile says sets something else passes; the rest is still refused.
  LimitsSpec spec = PowerSupply();
  spec.quantities[0].other_headers.push_back(Header("[SOURce#:]VOLTage:PROTection[:LEVel]"));
  absl::StatusOr<QuantityLimits> declared = QuantityLimits::Create(spec);
  ASSERT_TRUE(declared.ok()) << declared.status();
  EXPECT_TRUE(declared->Check("VOLT:PROT 40", state_, now_, "psu-2").status.ok());
  EXPECT_TRUE(declared->Check("SOUR1:VOLT:PROT:LEV 40", state_, now_, "psu-2").status.ok());
  EXPECT_FALSE(declared->Check("VOLT:TRIG 35", state_, now_, "psu-2").status.ok());
}

// A per-channel limit holds only if labgate knows the channel: INST CH2 would send a later
// VOLT 12 to channel 2 while labgate reads it as channel 1's.
TEST_F(QuantityLimitsTest, ChoosingAChannelOutsideTheCommandThatSetsItIsRefused) {
  for (const char* line :
       {"INST CH2", "INST:SEL CH2", "instrument:nselect 2", "VOLT 3,(@2)", "APPL CH1,3,0.5,(@2)"}) {
    LimitVerdict verdict = Check(line);
    EXPECT_EQ(verdict.status.code(), absl::StatusCode::kPermissionDenied) << line;
    EXPECT_TRUE(absl::StrContains(verdict.status.message(), "name the channel"))
        << line << ": " << verdict.status;
  }
  EXPECT_TRUE(Check("INST?").status.ok()) << "asking which is selected changes nothing";
  LimitVerdict named = Check("SOUR2:VOLT 3");
  ASSERT_TRUE(named.status.ok()) << named.status;
  ASSERT_EQ(named.settings.size(), 1u);
  EXPECT_EQ(named.settings[0].channel, 2);
}

// *RST puts the supply back to its defaults: steps count from there, not from the value it had.
TEST_F(QuantityLimitsTest, AResetPutsTheLastValuesBackToTheDeclaredDefaults) {
  ASSERT_TRUE(Write("VOLT 4.5").status.ok());
  ASSERT_TRUE(Write("VOLT 4.9").status.ok());
  LimitVerdict reset = Write("*RST");
  ASSERT_TRUE(reset.status.ok()) << reset.status;
  EXPECT_EQ(limits_->Describe(reset.settings, "psu-2"), "") << "a reset sets nothing to ask about";
  auto last = [this](const char* quantity) { return state_.last[{quantity, 1}].value; };
  EXPECT_EQ(last("voltage"), 0) << "the declared default";
  EXPECT_EQ(last("current"), 0.1);
  LimitVerdict jump = Check("VOLT 5");
  EXPECT_EQ(jump.status.code(), absl::StatusCode::kPermissionDenied)
      << "0 V to 5 V, not 4.9 V to 5 V";
  EXPECT_TRUE(absl::StrContains(jump.status.message(), "from 0 V to 5 V")) << jump.status;
  // Within one write, what follows the reset steps from the defaults too.
  EXPECT_TRUE(Check("VOLT 0.8;*RST;VOLT 0.5").status.ok());
  EXPECT_FALSE(Check("*RST;VOLT 1.5").status.ok());
}

TEST(QuantityLimitsResetTest, AQuantityWithoutADefaultIsUnknownAfterAReset) {
  LimitsSpec spec = PowerSupply();
  spec.quantities[0].range.def.reset();
  absl::StatusOr<QuantityLimits> limits = QuantityLimits::Create(spec);
  ASSERT_TRUE(limits.ok()) << limits.status();
  LimitState state;
  const Clock::time_point now = Clock::now();
  LimitVerdict set = limits->Check("VOLT 4; SOUR2:VOLT 2", state, now, "psu-2");
  ASSERT_TRUE(set.status.ok()) << set.status;
  QuantityLimits::Commit(set.settings, &state, now);
  LimitVerdict reset = limits->Check("*RST", state, now, "psu-2");
  ASSERT_TRUE(reset.status.ok());
  QuantityLimits::Commit(reset.settings, &state, now);
  auto known = [&state](const char* quantity, int channel) {
    return state.last.contains({quantity, channel});
  };
  EXPECT_FALSE(known("voltage", 1));
  EXPECT_FALSE(known("voltage", 2)) << "every channel a value was known on";
  ASSERT_TRUE(known("current", 1));
  EXPECT_EQ(state.last.at({"current", 1}).value, 0.1);
}

// A device reads writes that carry no terminator as one line: "VO" then "LT 35" is VOLT 35.
TEST_F(QuantityLimitsTest, AJoinThatMakesASettingNeitherPartMakesIsRefused) {
  const absl::Status split = limits_->CheckJoin("VO", {0}, "LT 35", "psu-2");
  EXPECT_EQ(split.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(absl::StrContains(split.message(), "'VOLT 35' on psu-2")) << split.message();
  EXPECT_TRUE(absl::StrContains(split.message(), "completes the line 'VO'")) << split.message();
  EXPECT_FALSE(limits_->CheckJoin("VO", {0}, "LT 0.5", "psu-2").ok())
      << "within the limits too: no check saw it whole, and a step rule needs the last value";
  EXPECT_FALSE(limits_->CheckJoin("VOLT 3", {0}, "5", "psu-2").ok()) << "3 V becomes 35 V";
  // The device may have dropped the line's start ("X"): then it reads VOLT 3 alone, which the
  // joined line XVOLT 3 does not show. Only a write that starts the line afresh is clear.
  EXPECT_FALSE(limits_->CheckJoin("X", {0}, "VOLT 3", "psu-2").ok());
  EXPECT_FALSE(limits_->CheckJoin("XVO", {0, 1}, "LT 3", "psu-2").ok())
      << "from the second write's start, VOLT 3";
  EXPECT_TRUE(limits_->CheckJoin("*CLS;", {0}, "OUTP ON", "psu-2").ok())
      << "nothing limited is set by the join";
  EXPECT_TRUE(limits_->CheckJoin("VOLT 3;", {0}, "CURR 0.2", "psu-2").ok())
      << "each part sets what the joined line sets";
}

// A device without SCPI that takes several settings in one line: VSET1:1VSET1:30.
class QuantityLimitsEveryMatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    LimitsSpec spec = PatternVoltage("VSET(?P<channel>\\d):(?P<value>[0-9.]+)", 12);
    LimitRule step;
    step.name = "step-voltage";
    step.quantity = "voltage";
    step.max_step = 5;
    spec.rules.push_back(step);
    absl::StatusOr<QuantityLimits> limits = QuantityLimits::Create(spec);
    ASSERT_TRUE(limits.ok()) << limits.status();
    limits_ = std::make_unique<QuantityLimits>(*std::move(limits));
  }
  LimitVerdict Check(const std::string& line) {
    return limits_->Check(line, state_, now_, "bench-psu");
  }

  std::unique_ptr<QuantityLimits> limits_;
  LimitState state_;
  Clock::time_point now_ = Clock::now();
};

TEST_F(QuantityLimitsEveryMatchTest, ASecondMatchInTheLineIsCheckedToo) {
  LimitVerdict verdict = Check("VSET1:1VSET1:30");
  EXPECT_EQ(verdict.status.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(verdict.status.message(), "30 V exceeds max-voltage (12 V) on bench-psu channel 1");
}

TEST_F(QuantityLimitsEveryMatchTest, AllowedMatchesAllCommitInOrder) {
  LimitVerdict verdict = Check("VSET1:1VSET2:5 VSET1:3");
  ASSERT_TRUE(verdict.status.ok()) << verdict.status;
  EXPECT_EQ(limits_->Describe(verdict.settings, "bench-psu"),
            "voltage 1 V on bench-psu channel 1; voltage 5 V on bench-psu channel 2; voltage 3 V "
            "on bench-psu channel 1");
  QuantityLimits::Commit(verdict.settings, &state_, now_);
  auto last = [&](int channel) { return state_.last[{"voltage", channel}].value; };
  EXPECT_EQ(last(1), 3) << "the last match on a channel is kept";
  EXPECT_EQ(last(2), 5);
  // Each match is a step from the one before it, not from the value committed before.
  EXPECT_TRUE(Check("VSET1:7VSET1:11").status.ok()) << "3 V to 7 V to 11 V";
  EXPECT_EQ(Check("VSET1:6VSET1:11.5").status.message(),
            "a step of 5.5 V (from 6 V to 11.5 V) exceeds step-voltage (5 V) on bench-psu "
            "channel 1");
}

TEST(QuantityLimitsPatternTest, APatternThatMatchesEmptyTextStillEnds) {
  LimitsSpec spec;
  QuantitySpec level;
  level.name = "level";
  level.unit = "V";
  level.pattern_text = "(?P<value>[0-9]*)";
  level.pattern = *CompilePattern(level.pattern_text, PatternInput::kUtf8, "test");
  spec.quantities.push_back(level);
  absl::StatusOr<QuantityLimits> limits = QuantityLimits::Create(spec);
  ASSERT_TRUE(limits.ok()) << limits.status();
  LimitVerdict verdict = limits->Check("a1b22", LimitState{}, Clock::now(), "dev");
  EXPECT_TRUE(verdict.status.ok()) << verdict.status;
  ASSERT_EQ(verdict.settings.size(), 2u);
  EXPECT_EQ(verdict.settings[1].value, 22);
}

TEST(QuantityLimitsCreateTest, RulesAndListsMustNameDeclaredQuantities) {
  LimitsSpec spec = PowerSupply();
  LimitRule stray;
  stray.name = "max-power";
  stray.quantity = "power";
  stray.max = 10;
  spec.rules.push_back(stray);
  absl::StatusOr<QuantityLimits> limits = QuantityLimits::Create(spec);
  ASSERT_FALSE(limits.ok());
  EXPECT_EQ(limits.status().message(),
            "limit 'max-power' is on the quantity 'power', which the profile does not declare");
  LimitsSpec no_group;
  QuantitySpec voltage;
  voltage.name = "voltage";
  voltage.unit = "V";
  voltage.pattern = *CompilePattern("^SET (\\d+)$", PatternInput::kUtf8, "test");
  no_group.quantities.push_back(voltage);
  EXPECT_FALSE(QuantityLimits::Create(no_group).ok());
}

// A device that takes commands without a terminator joins them all: each stays itself.
TEST_F(QuantityLimitsEveryMatchTest, CommandsSentOneAfterAnotherJoinAsThemselves) {
  EXPECT_TRUE(limits_->CheckJoin("VSET1:3.0", {0}, "VSET1:3.5", "bench-psu").ok());
  EXPECT_TRUE(limits_->CheckJoin("VSET1:3.0VSET1:3.5", {0, 9}, "VSET2:1", "bench-psu").ok());
  EXPECT_FALSE(limits_->CheckJoin("VSET1:", {0}, "30", "bench-psu").ok());
  EXPECT_FALSE(limits_->CheckJoin("VSET1:3", {0}, "0", "bench-psu").ok()) << "3 V becomes 30 V";
}

}  // namespace
}  // namespace labgate::serial
