// The SCPI reading behind quantity limits: program messages (headers, §6.2 paths, parameters),
// numeric parameters with IEEE 488.2 suffixes, and headers as manuals write them. Table-driven.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_join.h"
#include "serial-service/limits/scpi_header_pattern.h"
#include "serial-service/limits/scpi_message.h"
#include "serial-service/limits/scpi_quantity.h"

namespace labgate::serial {
namespace {

// "SOUR1:VOLT" for the nodes, "*RST" for a common command, "?" appended to queries.
std::string Header(const ScpiCommand& command) {
  std::vector<std::string> nodes;
  for (const ScpiNode& node : command.nodes) {
    nodes.push_back(absl::AsciiStrToUpper(node.mnemonic) +
                    (node.suffix ? std::to_string(*node.suffix) : ""));
  }
  return (command.common ? "*" : "") + absl::StrJoin(nodes, ":") + (command.query ? "?" : "");
}

struct LineCase {
  std::string line;
  std::vector<std::string> headers;     // one per command, resolved
  std::vector<std::string> parameters;  // of the last command, joined by '|'
};

TEST(ScpiMessageTest, HeadersResolveByTheRulesOfScpi99Section6_2) {
  const std::vector<LineCase> cases = {
      {"VOLT 12", {"VOLT"}, {"12"}},
      {"volt 12000mV", {"VOLT"}, {"12000mV"}},
      {"SOUR1:VOLT:LEV:IMM:AMPL 4.9", {"SOUR1:VOLT:LEV:IMM:AMPL"}, {"4.9"}},
      // Mnemonics stay as written (upper-cased); short and long forms are the patterns' business.
      {":SOURce:VOLTage 5;CURRent 0.5", {"SOURCE:VOLTAGE", "SOURCE:CURRENT"}, {"0.5"}},
      {"SOUR:VOLT 5;:OUTP ON", {"SOUR:VOLT", "OUTP"}, {"ON"}},
      {"SOUR2:VOLT:LEV 1;AMPL 2", {"SOUR2:VOLT:LEV", "SOUR2:VOLT:AMPL"}, {"2"}},
      {"*RST;VOLT 5", {"*RST", "VOLT"}, {"5"}},
      {"SOUR:VOLT 5;*OPC;CURR 1", {"SOUR:VOLT", "*OPC", "SOUR:CURR"}, {"1"}},
      {"APPL CH1,12,0.5", {"APPL"}, {"CH1", "12", "0.5"}},
      {"APPLy CH1, 12 V , 500mA", {"APPLY"}, {"CH1", "12 V", "500mA"}},
      {"MEAS:VOLT?", {"MEAS:VOLT?"}, {}},
      {"*IDN?", {"*IDN?"}, {}},
      {"DISP:TEXT 'a;b,c'", {"DISP:TEXT"}, {"'a;b,c'"}},
      {"DISP:TEXT \"say \"\"hi\"\"; now\"", {"DISP:TEXT"}, {"\"say \"\"hi\"\"; now\""}},
      {"VOLT 5;", {"VOLT"}, {"5"}},
      {"  VOLT\t5  ", {"VOLT"}, {"5"}},
  };
  for (const LineCase& c : cases) {
    absl::StatusOr<std::vector<ScpiCommand>> parsed = ParseScpiLine(c.line);
    ASSERT_TRUE(parsed.ok()) << c.line << ": " << parsed.status();
    std::vector<std::string> headers;
    for (const ScpiCommand& command : *parsed) headers.push_back(Header(command));
    EXPECT_EQ(headers, c.headers) << c.line;
    const std::vector<std::string> parameters(parsed->back().parameters.begin(),
                                              parsed->back().parameters.end());
    EXPECT_EQ(parameters, c.parameters) << c.line;
  }
}

TEST(ScpiMessageTest, WhatCannotBeReadIsRefusedSayingWhy) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"VOLT 5;;CURR 1", "an empty command"},
      {";VOLT 5", "an empty command"},
      {"DISP:TEXT 'open", "quoted string is not closed"},
      {"1VOLT 5", "'1VOLT' is not a mnemonic"},
      {"VOLT::LEV 5", "'' is not a mnemonic"},
      {"VO-LT 5", "'VO-LT' is not a mnemonic"},
      {"DATA #15hello", "block data"},
      {"VOLT 5,", "an empty parameter"},
      {"VOLT ,5", "an empty parameter"},
      {"*RST2", "not a common command"},
      {"SOUR99999999999:VOLT 1", "suffix out of range"},
      {":", "is not a mnemonic"},
  };
  for (const auto& [line, why] : cases) {
    absl::StatusOr<std::vector<ScpiCommand>> parsed = ParseScpiLine(line);
    ASSERT_FALSE(parsed.ok()) << line;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument) << line;
    EXPECT_NE(parsed.status().message().find(why), std::string::npos)
        << line << ": " << parsed.status();
  }
}

struct QuantityCase {
  std::string parameter;
  std::string unit;
  double value;
};

TEST(ScpiQuantityTest, SuffixesFollowIeee488_2Section7_7_3) {
  const std::vector<QuantityCase> cases = {
      {"12", "V", 12},        {"12 V", "V", 12},    {"12v", "V", 12},        {"12000mV", "V", 12},
      {"12000MV", "V", 12},   {"0.012KV", "V", 12}, {"1.2e1", "V", 12},      {"1.2E+1V", "V", 12},
      {"+12.", "V", 12},      {".5", "V", 0.5},     {"-5", "V", -5},         {"5000mV", "V", 5},
      {"500mA", "A", 0.5},    {"500MA", "A", 0.5},  {"2MAA", "A", 2e6},      {"100uA", "A", 1e-4},
      {"1 A", "A", 1},        {"1MAV", "V", 1e6},   {"10MHZ", "HZ", 1e7},    {"10khz", "HZ", 1e4},
      {"10MOHM", "OHM", 1e7}, {"4.9", "V", 4.9},    {"120E-3 A", "A", 0.12},
  };
  for (const QuantityCase& c : cases) {
    absl::StatusOr<double> value = ParseQuantity(c.parameter, c.unit);
    ASSERT_TRUE(value.ok()) << c.parameter << " in " << c.unit << ": " << value.status();
    EXPECT_DOUBLE_EQ(*value, c.value) << c.parameter << " in " << c.unit;
  }
  EXPECT_EQ(*ParseQuantity("5000mV", "V"), 5.0) << "exactly, so a 5 V limit lets it pass";
}

TEST(ScpiQuantityTest, MinMaxAndDefComeFromTheDeclaredRange) {
  QuantityRange range;
  range.min = 0;
  range.max = 30;
  range.def = 1;
  EXPECT_EQ(*ParseQuantity("MAX", "V", range), 30);
  EXPECT_EQ(*ParseQuantity("maximum", "V", range), 30);
  EXPECT_EQ(*ParseQuantity("MIN", "V", range), 0);
  EXPECT_EQ(*ParseQuantity("def", "V", range), 1);
  absl::StatusOr<double> undeclared = ParseQuantity("MAX", "V");
  ASSERT_FALSE(undeclared.ok());
  EXPECT_NE(undeclared.status().message().find("MAX is not declared"), std::string::npos)
      << undeclared.status();
}

TEST(ScpiQuantityTest, AnythingElseIsRefusedNamingTheParameter) {
  for (const char* parameter : {"12 A", "abc", "12 XV", "1e999", "", "5E", "ON", "CH1", "1,2",
                                "nan", "inf", "12 VV", "--5"}) {
    absl::StatusOr<double> value = ParseQuantity(parameter, "V");
    ASSERT_FALSE(value.ok()) << parameter << " gave " << (value.ok() ? *value : 0);
    EXPECT_EQ(value.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(value.status().message().find(std::string("'") + parameter + "'"), std::string::npos)
        << value.status();
  }
  EXPECT_EQ(FormatQuantity(12, "V"), "12 V");
  EXPECT_EQ(FormatQuantity(0.5, "A"), "0.5 A");
}

// The last command's nodes: views into `line`, which must outlive them (a temporary lives to
// the end of the expression that uses them).
ScpiNodes Nodes(const std::string& line) {
  absl::StatusOr<std::vector<ScpiCommand>> parsed = ParseScpiLine(line);
  EXPECT_TRUE(parsed.ok()) << line << ": " << parsed.status();
  return parsed.ok() ? parsed->back().nodes : ScpiNodes{};
}

TEST(ScpiHeaderPatternTest, ShortAndLongFormsOptionalNodesAndTheChannelSuffix) {
  absl::StatusOr<ScpiHeaderPattern> volt =
      ScpiHeaderPattern::Parse("[SOURce#:]VOLTage[:LEVel][:IMMediate][:AMPLitude]");
  ASSERT_TRUE(volt.ok()) << volt.status();
  const std::vector<std::pair<std::string, std::optional<int>>> matching = {
      {"VOLT 1", std::nullopt},       {"voltage 1", std::nullopt},
      {"SOUR:VOLT 1", std::nullopt},  {"SOUR2:VOLT:LEV:IMM:AMPL 1", 2},
      {"source1:voltage:level 1", 1}, {"VOLT:AMPL 1", std::nullopt},
      {"SOUR3:VOLT:LEV 1;AMPL 2", 3},  // §6.2: the second command is SOUR3:VOLT:AMPL
  };
  for (const auto& [line, channel] : matching) {
    std::optional<ScpiHeaderPattern::Match> match = volt->Matches(Nodes(line));
    ASSERT_TRUE(match.has_value()) << line;
    EXPECT_EQ(match->channel, channel) << line;
  }
  // "SOUR3:VOLT 1;LEV 2": §6.2 makes the second command SOUR3:LEV, which is no voltage.
  for (const char* line :
       {"CURR 1", "SOUR:CURR 1", "VOLT:PROT 1", "SOUR:VOLT1 1", "VOLTA 1", "VOLT:LEV:LEV 1",
        "OUTP:VOLT 1", "SOUR:SOUR:VOLT 1", "SOUR3:VOLT 1;LEV 2"}) {
    EXPECT_FALSE(volt->Matches(Nodes(line)).has_value()) << line;
  }
  absl::StatusOr<ScpiHeaderPattern> bracketed = ScpiHeaderPattern::Parse("[SOURce[1]:]CURRent");
  ASSERT_TRUE(bracketed.ok()) << bracketed.status();
  EXPECT_EQ(bracketed->Matches(Nodes("SOUR4:CURR 1"))->channel, 4);
  absl::StatusOr<ScpiHeaderPattern> apply = ScpiHeaderPattern::Parse("APPLy");
  ASSERT_TRUE(apply.ok());
  EXPECT_TRUE(apply->Matches(Nodes("appl CH1,12,0.5")).has_value());
  EXPECT_TRUE(apply->Matches(Nodes("APPLY CH1,12,0.5")).has_value());
}

TEST(ScpiHeaderPatternTest, ABadPatternIsRefusedByName) {
  for (const char* pattern :
       {"[SOURce:VOLTage", "volt", "VOLTage:", "", "[LEVel]", "VOLT-age", "VOLTage::LEVel"}) {
    absl::StatusOr<ScpiHeaderPattern> parsed = ScpiHeaderPattern::Parse(pattern);
    ASSERT_FALSE(parsed.ok()) << pattern;
    EXPECT_NE(parsed.status().message().find(std::string("header '") + pattern + "'"),
              std::string::npos)
        << parsed.status();
  }
}

}  // namespace
}  // namespace labgate::serial
