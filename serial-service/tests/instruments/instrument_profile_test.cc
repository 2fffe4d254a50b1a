// Instrument profiles: a power supply's whole profile parses into working limits, sequences and
// readings; unknown keys, bad patterns and headers, limits on undeclared quantities and two files
// for one model are refused, naming the file and what is wrong.
#include "serial-service/instruments/instrument_profile.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "re2/re2.h"

namespace labgate::serial {
namespace {

using ::testing::HasSubstr;

// A three-channel supply in the manual's header forms (the example in docs/OPERATIONS.md).
constexpr char kSupply[] = R"json({
  "model": "DP832",
  "match": {
    "usb": {"vid": "0x1ab1", "pid": "0x0e11"},
    "probe": {"reply": "^RIGOL TECHNOLOGIES,DP832,(?P<serial>[^,]+),"}
  },
  "settings": {"baud_rate": 9600, "terminator": "\n", "timeout_ms": 2000},
  "tags": ["psu", "bench-2"],
  "quantities": {
    "voltage": {"unit": "V", "min": 0, "max": 32, "default": 0,
                "headers": ["[SOURce#:]VOLTage[:LEVel][:IMMediate][:AMPLitude]"]},
    "current": {"unit": "A", "min": 0, "max": 3.2,
                "headers": ["[SOURce#:]CURRent[:LEVel][:IMMediate][:AMPLitude]"]}
  },
  "lists": [{"header": "APPLy", "channel_parameter": 0,
             "channels": {"CH1": 1, "CH2": 2, "CH3": 3},
             "quantities": {"1": "voltage", "2": "current"}}],
  "limits": [
    {"name": "max-voltage", "quantity": "voltage", "max": 5, "max_step": 1},
    {"name": "max-current", "quantity": "current", "channel": 1, "max": 1, "confirm_above": 0.5}
  ],
  "sequences": {"safe": {"steps": [{"send": "OUTP OFF"}, {"delay_ms": 50}]}},
  "readings": {"voltage": {"pattern": "^(?P<value>[-+0-9.E]+)$", "unit": "V"}}
})json";

TEST(InstrumentProfileTest, AWholeProfileParsesIntoWorkingLimits) {
  absl::StatusOr<InstrumentProfile> profile = ParseInstrumentProfile(kSupply, "dp832.json");
  ASSERT_TRUE(profile.ok()) << profile.status();
  EXPECT_EQ(profile->model, "DP832");
  const InstrumentProfile::UsbMatch usb = profile->usb.value_or(InstrumentProfile::UsbMatch{});
  EXPECT_EQ(usb.vid, "0x1ab1");
  EXPECT_FALSE(usb.manufacturer.has_value());
  ASSERT_TRUE(profile->probe.has_value());
  const InstrumentProfile::Probe probe = profile->probe.value_or(InstrumentProfile::Probe{});
  EXPECT_EQ(probe.command, "*IDN?") << "the default probe";
  std::string serial;
  EXPECT_TRUE(re2::RE2::PartialMatch("RIGOL TECHNOLOGIES,DP832,DP8A123,00.01.14", *probe.compiled,
                                     &serial));
  EXPECT_EQ(serial, "DP8A123");
  EXPECT_EQ(profile->settings.baud_rate, 9600);
  EXPECT_EQ(profile->settings.terminator, "\n");
  EXPECT_FALSE(profile->settings.parity.has_value());
  EXPECT_THAT(profile->tags, ::testing::ElementsAre("psu", "bench-2"));
  ASSERT_EQ(profile->sequences.size(), 1u);
  EXPECT_EQ(DescribeSteps(profile->sequences[0].steps), "send \"OUTP OFF\"; wait 50 ms");
  ASSERT_EQ(profile->readings.size(), 1u);
  EXPECT_EQ(profile->readings[0].unit, "V");

  ASSERT_NE(profile->limits, nullptr);
  LimitState state;
  const auto now = std::chrono::steady_clock::now();
  EXPECT_EQ(profile->limits->Check("APPL CH1,12,0.5", state, now, "psu-2").status.message(),
            "12 V exceeds max-voltage (5 V) on psu-2 channel 1");
  EXPECT_EQ(profile->limits->Check("VOLT MAX", state, now, "psu-2").status.message(),
            "32 V exceeds max-voltage (5 V) on psu-2 channel 1")
      << "MAX is the declared range's";
  EXPECT_TRUE(profile->limits->Check("volt 4900mV", state, now, "psu-2").status.ok());
  EXPECT_EQ(profile->limits->Check("CURR 0.8", state, now, "psu-2").confirm_rule, "max-current");
}

TEST(InstrumentProfileTest, OtherHeadersNamingAQuantityPassAndTheRestAreRefused) {
  nlohmann::json document = nlohmann::json::parse(kSupply);
  document["quantities"]["voltage"]["other_headers"] = {"[SOURce#:]VOLTage:PROTection[:LEVel]"};
  absl::StatusOr<InstrumentProfile> profile = ParseInstrumentProfile(document.dump(), "dp832.json");
  ASSERT_TRUE(profile.ok()) << profile.status();
  ASSERT_NE(profile->limits, nullptr);
  LimitState state;
  const auto now = std::chrono::steady_clock::now();
  EXPECT_TRUE(profile->limits->Check("VOLT:PROT 33", state, now, "psu-2").status.ok());
  EXPECT_THAT(
      std::string(profile->limits->Check("VOLT:TRIG 33", state, now, "psu-2").status.message()),
      HasSubstr("it names VOLTage but is not a header the profile declares"));
}

// The profile with `edit` applied to its JSON; the error it must give.
std::string Refusal(const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json document = nlohmann::json::parse(kSupply);
  edit(document);
  absl::StatusOr<InstrumentProfile> profile = ParseInstrumentProfile(document.dump(), "p.json");
  EXPECT_FALSE(profile.ok()) << document.dump();
  EXPECT_EQ(profile.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(profile.status().message());
}

TEST(InstrumentProfileTest, WhatIsWrongIsNamedWithTheFile) {
  EXPECT_THAT(Refusal([](nlohmann::json& d) { d["colour"] = "red"; }),
              ::testing::AllOf(HasSubstr("profile p.json"), HasSubstr("colour")));
  EXPECT_THAT(Refusal([](nlohmann::json& d) { d["quantities"]["voltage"]["units"] = "V"; }),
              HasSubstr("units"));
  EXPECT_THAT(Refusal([](nlohmann::json& d) { d["match"]["probe"]["reply"] = "(DP832"; }),
              ::testing::AllOf(HasSubstr("match.probe.reply"), HasSubstr("missing )")));
  EXPECT_THAT(Refusal([](nlohmann::json& d) { d["match"]["usb"]["vid"] = "1ab1"; }),
              HasSubstr("vid"));
  EXPECT_THAT(Refusal([](nlohmann::json& d) {
                d["quantities"]["voltage"]["headers"][0] = "[SOURce#:VOLT";
              }),
              HasSubstr("quantities.voltage: header '[SOURce#:VOLT'"));
  EXPECT_THAT(Refusal([](nlohmann::json& d) { d["limits"][0]["quantity"] = "power"; }),
              HasSubstr("limit 'max-voltage' is on the quantity 'power'"));
  EXPECT_THAT(Refusal([](nlohmann::json& d) {
                d["limits"][0].erase("max");
                d["limits"][0].erase("max_step");
              }),
              HasSubstr("limits"));
  EXPECT_THAT(
      Refusal([](nlohmann::json& d) { d["readings"]["voltage"]["pattern"] = "^([0-9.]+)$"; }),
      HasSubstr("readings.voltage: the pattern has no group named value"));
  EXPECT_THAT(Refusal([](nlohmann::json& d) { d["simulation"]["colour"] = "red"; }),
              HasSubstr("colour"));
  EXPECT_THAT(Refusal([](nlohmann::json& d) { d["simulation"]["state"]["power"]["initial"] = 1; }),
              HasSubstr("simulation.state.power: the state is kept in a quantity the profile "
                        "declares"));
  EXPECT_THAT(
      Refusal([](nlohmann::json& d) { d["simulation"]["responses"][0]["match"] = "(unclosed"; }),
      HasSubstr("simulation.responses[0].match"));
  EXPECT_THAT(Refusal([](nlohmann::json& d) {
                d["simulation"]["switches"]["output"]["headers"] = {"[OUTPut"};
              }),
              HasSubstr("simulation.switches.output: header '[OUTPut'"));
  EXPECT_THAT(
      Refusal([](nlohmann::json& d) { d["readings"]["voltage"]["command"] = "(MEAS:VOLT?"; }),
      ::testing::AllOf(HasSubstr("readings.voltage.command"), HasSubstr("missing )")));
  EXPECT_THAT(Refusal([](nlohmann::json& d) { d["sequences"]["safe"]["steps"][1]["send"] = "x"; }),
              HasSubstr("sequences.safe.steps[1] must be exactly one of"));
  EXPECT_THAT(Refusal([](nlohmann::json& d) { d["lists"][0].erase("channels"); }),
              HasSubstr("lists[0]: channel_parameter needs channels"));
  EXPECT_THAT(Refusal([](nlohmann::json& d) {
                d["quantities"]["voltage"]["other_headers"] = {"VOLTage:[PROT"};
              }),
              HasSubstr("quantities.voltage: header 'VOLTage:[PROT'"));
  EXPECT_THAT(Refusal([](nlohmann::json& d) { d["quantities"]["voltage"].erase("headers"); }),
              HasSubstr("quantities.voltage: say where it is set"));
  absl::StatusOr<InstrumentProfile> not_json = ParseInstrumentProfile("{", "broken.json");
  EXPECT_THAT(std::string(not_json.status().message()),
              HasSubstr("profile broken.json: not valid JSON"));
}

TEST(InstrumentProfileTest, ATerminatorIsAtMostFourControlCharacters) {
  EXPECT_THAT(Refusal([](nlohmann::json& d) { d["settings"]["terminator"] = "\n:VOLT 30\n"; }),
              ::testing::AllOf(HasSubstr("profile p.json"),
                               HasSubstr("settings.terminator must be empty or at most 4 control "
                                         "characters (bytes 0x00-0x1F")));
  EXPECT_THAT(Refusal([](nlohmann::json& d) { d["settings"]["terminator"] = "\r\n\r\n\r"; }),
              HasSubstr("settings.terminator"));
  nlohmann::json crlf = nlohmann::json::parse(kSupply);
  crlf["settings"]["terminator"] = "\r\n";
  absl::StatusOr<InstrumentProfile> profile = ParseInstrumentProfile(crlf.dump(), "crlf.json");
  ASSERT_TRUE(profile.ok()) << profile.status();
  EXPECT_EQ(profile->settings.terminator, "\r\n");
}

TEST(InstrumentProfileTest, ADirectoryLoadsEveryProfileAndRefusesTwoForOneModel) {
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / absl::StrCat("labgate-profiles-", getpid());
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "a-dp832.json") << kSupply;
  std::ofstream(dir / "b-meter.json") << R"({"model": "34461A", "tags": ["dmm"]})";
  std::ofstream(dir / "notes.txt") << "not a profile";
  absl::StatusOr<std::vector<InstrumentProfile>> loaded = LoadInstrumentProfiles(dir.string());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ(loaded->size(), 2u);
  EXPECT_EQ((*loaded)[0].model, "DP832");
  EXPECT_EQ((*loaded)[1].model, "34461A");
  EXPECT_EQ((*loaded)[1].limits, nullptr);

  std::ofstream(dir / "c-copy.json") << kSupply;
  absl::StatusOr<std::vector<InstrumentProfile>> twice = LoadInstrumentProfiles(dir.string());
  ASSERT_FALSE(twice.ok());
  EXPECT_THAT(std::string(twice.status().message()),
              ::testing::AllOf(HasSubstr("c-copy.json"), HasSubstr("'DP832' is also in"),
                               HasSubstr("a-dp832.json")));
  std::filesystem::remove_all(dir);
  EXPECT_EQ(LoadInstrumentProfiles(dir.string()).status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace labgate::serial
