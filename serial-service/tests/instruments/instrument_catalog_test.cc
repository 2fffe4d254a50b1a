// Named instruments: a good file parses into its instruments; unknown keys, bad names, two match
// keys, unknown profiles, two instruments with one name or one serial, an idn_serial whose
// profile's probe gives no serial and text that is not JSON are refused, naming the file and
// what is wrong; a catalog loads from real files in a directory.
#include "serial-service/instruments/instrument_catalog.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

namespace labgate::serial {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A supply behind an FTDI adapter whose probe reply carries its serial number.
constexpr char kSimPsu[] = R"json({
  "model": "SIM-PSU",
  "match": {
    "usb": {"vid": "0x0403", "pid": "0x6001"},
    "probe": {"command": "*IDN?", "reply": "^LABGATE,SIM-PSU,(?P<serial>[^,]+),"}
  },
  "settings": {"baud_rate": 9600, "terminator": "\n"}
})json";
// No probe at all.
constexpr char kMeter[] = R"json({"model": "34461A", "tags": ["dmm"]})json";
// A probe whose reply pattern has no group `serial`.
constexpr char kRigol[] = R"json({
  "model": "DP832", "match": {"probe": {"reply": "^RIGOL TECHNOLOGIES,DP832,"}}
})json";

constexpr char kBench[] = R"json({"instruments": [
  {"name": "psu-1", "profile": "SIM-PSU", "match": {"usb_serial": "A10K1234"},
   "bench": "bench-2", "tags": ["supply", "bench-2"]},
  {"name": "psu-2", "profile": "SIM-PSU", "match": {"idn_serial": "0002"}},
  {"name": "dmm", "profile": "34461A",
   "match": {"by_path": "/dev/serial/by-id/usb-Keysight_34461A_MY123-if00"}},
  {"name": "rigol.dp832_1", "profile": "DP832", "match": {"port_name": "/dev/ttyS0"}}
]})json";

std::shared_ptr<const InstrumentProfile> Profile(const char* json_text, const char* source) {
  absl::StatusOr<InstrumentProfile> profile = ParseInstrumentProfile(json_text, source);
  EXPECT_TRUE(profile.ok()) << profile.status();
  return std::make_shared<const InstrumentProfile>(profile.value_or(InstrumentProfile{}));
}

const std::vector<std::shared_ptr<const InstrumentProfile>>& Profiles() {
  static const auto* profiles = new std::vector<std::shared_ptr<const InstrumentProfile>>{
      Profile(kSimPsu, "sim-psu.json"), Profile(kMeter, "dmm.json"), Profile(kRigol, "dp832.json")};
  return *profiles;
}

TEST(InstrumentCatalogTest, AGoodFileParsesIntoItsInstruments) {
  absl::StatusOr<std::vector<NamedInstrument>> parsed =
      ParseInstrumentsFile(kBench, "bench.json", Profiles());
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_EQ(parsed->size(), 4u);
  const NamedInstrument& psu = (*parsed)[0];
  EXPECT_EQ(psu.name, "psu-1");
  EXPECT_EQ(psu.profile, "SIM-PSU");
  EXPECT_EQ(psu.match.kind, InstrumentMatch::Kind::kUsbSerial);
  EXPECT_EQ(psu.match.value, "A10K1234");
  EXPECT_EQ(psu.bench, "bench-2");
  EXPECT_THAT(psu.tags, ElementsAre("supply", "bench-2"));
  EXPECT_EQ((*parsed)[1].match.kind, InstrumentMatch::Kind::kIdnSerial);
  EXPECT_FALSE((*parsed)[1].bench.has_value());
  EXPECT_TRUE((*parsed)[1].tags.empty());
  EXPECT_EQ((*parsed)[2].match.kind, InstrumentMatch::Kind::kByPath);
  EXPECT_EQ((*parsed)[3].match.kind, InstrumentMatch::Kind::kPortName);
  EXPECT_EQ((*parsed)[3].match.value, "/dev/ttyS0");

  absl::StatusOr<std::vector<NamedInstrument>> none =
      ParseInstrumentsFile(R"({"instruments": []})", "empty.json", {});
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(none->empty());
}

TEST(InstrumentCatalogTest, MatchKindsAreNamedAsTheFileSpellsThem) {
  EXPECT_STREQ(MatchKindName(InstrumentMatch::Kind::kUsbSerial), "usb_serial");
  EXPECT_STREQ(MatchKindName(InstrumentMatch::Kind::kByPath), "by_path");
  EXPECT_STREQ(MatchKindName(InstrumentMatch::Kind::kIdnSerial), "idn_serial");
  EXPECT_STREQ(MatchKindName(InstrumentMatch::Kind::kPortName), "port_name");
}

TEST(InstrumentCatalogTest, OneValueUnderTwoKindsIsNoClash) {
  nlohmann::json document = nlohmann::json::parse(kBench);
  document["instruments"][1]["match"] = {{"idn_serial", "A10K1234"}};
  EXPECT_TRUE(ParseInstrumentsFile(document.dump(), "bench.json", Profiles()).ok())
      << "a USB serial and a probe's serial are different things";
}

struct BadFile {
  const char* what;
  std::function<void(nlohmann::json&)> edit;  // applied to kBench
  std::vector<std::string> expected;          // in the error, each
};

class BadFileTest : public ::testing::TestWithParam<BadFile> {};

TEST_P(BadFileTest, IsRefusedNamingTheFileAndWhatIsWrong) {
  nlohmann::json document = nlohmann::json::parse(kBench);
  GetParam().edit(document);
  absl::StatusOr<std::vector<NamedInstrument>> parsed =
      ParseInstrumentsFile(document.dump(), "bench.json", Profiles());
  ASSERT_FALSE(parsed.ok()) << document.dump();
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string message(parsed.status().message());
  EXPECT_THAT(message, HasSubstr("instruments file bench.json: "));
  for (const std::string& part : GetParam().expected) EXPECT_THAT(message, HasSubstr(part));
}

INSTANTIATE_TEST_SUITE_P(
    InstrumentCatalogTest, BadFileTest,
    ::testing::Values(
        BadFile{"UnknownTopLevelKey",
                [](nlohmann::json& d) { d["instrument"] = 1; },
                {"(top level)", "'instrument'"}},
        BadFile{"UnknownKeyInMatch",
                [](nlohmann::json& d) { d["instruments"][0]["match"]["serial"] = "A10K1234"; },
                {"[instruments][0][match]", "'serial'"}},
        BadFile{"UnknownKeyInAnInstrument",
                [](nlohmann::json& d) { d["instruments"][2]["colour"] = "red"; },
                {"[instruments][2]", "'colour'"}},
        BadFile{"NoInstrumentsKey",
                [](nlohmann::json& d) { d.erase("instruments"); },
                {"'instruments'"}},
        BadFile{"EmptyUsbSerial",
                [](nlohmann::json& d) { d["instruments"][0]["match"]["usb_serial"] = ""; },
                {"[instruments][0][match][usb_serial]"}},
        BadFile{"TagNotAString",
                [](nlohmann::json& d) { d["instruments"][0]["tags"][1] = 2; },
                {"[instruments][0][tags][1]"}},
        BadFile{"NameWithASpace",
                [](nlohmann::json& d) { d["instruments"][1]["name"] = "psu 2"; },
                {"instruments[1]: the name 'psu 2' must start with a letter or digit and hold "
                 "only letters, digits, '.', '_' and '-' (1 to 64 of them)"}},
        BadFile{"NameStartingWithADash",
                [](nlohmann::json& d) { d["instruments"][1]["name"] = "-psu"; },
                {"instruments[1]: the name '-psu' must start with a letter or digit"}},
        BadFile{"NameOf65Characters",
                [](nlohmann::json& d) { d["instruments"][1]["name"] = std::string(65, 'a'); },
                {"instruments[1]: the name 'aaaa", "(1 to 64 of them)"}},
        BadFile{"EmptyName",
                [](nlohmann::json& d) { d["instruments"][1]["name"] = ""; },
                {"instruments[1]: the name '' must start"}},
        BadFile{
            "TwoMatchKeys",
            [](nlohmann::json& d) { d["instruments"][0]["match"]["port_name"] = "/dev/ttyUSB1"; },
            {"instruments[0] 'psu-1': match must have exactly one of usb_serial, by_path, "
             "idn_serial, port_name; it has usb_serial and port_name"}},
        BadFile{"NoMatchKey",
                [](nlohmann::json& d) { d["instruments"][0]["match"] = nlohmann::json::object(); },
                {"instruments[0] 'psu-1': match must have exactly one of", "it has none"}},
        BadFile{"RelativeByPath",
                [](nlohmann::json& d) { d["instruments"][2]["match"]["by_path"] = "ttyUSB0"; },
                {"instruments[2] 'dmm': match.by_path 'ttyUSB0' is not an absolute path"}},
        BadFile{"RelativePortName",
                [](nlohmann::json& d) { d["instruments"][3]["match"]["port_name"] = "ttyS0"; },
                {"instruments[3] 'rigol.dp832_1': match.port_name 'ttyS0' is not an absolute "
                 "path"}},
        BadFile{"UnknownProfile",
                [](nlohmann::json& d) { d["instruments"][1]["profile"] = "DP833"; },
                {"instruments[1] 'psu-2': no profile has the model 'DP833'; the models are "
                 "SIM-PSU, 34461A, DP832"}},
        BadFile{"DuplicateName",
                [](nlohmann::json& d) { d["instruments"][2]["name"] = "psu-1"; },
                {"two instruments are named 'psu-1': instruments[0] and instruments[2]"}},
        BadFile{"TwoInstrumentsWithOneSerial",
                [](nlohmann::json& d) {
                  d["instruments"][1]["match"] = {{"usb_serial", "A10K1234"}};
                },
                {"psu-1 and psu-2 both match usb_serial 'A10K1234'"}},
        BadFile{"TwoInstrumentsWithOnePath",
                [](nlohmann::json& d) {
                  d["instruments"][2]["match"] = {{"port_name", "/dev/ttyS0"}};
                },
                {"dmm and rigol.dp832_1 both match port_name '/dev/ttyS0'"}},
        BadFile{"IdnSerialWithoutAProbe",
                [](nlohmann::json& d) { d["instruments"][1]["profile"] = "34461A"; },
                {"instruments[1] 'psu-2': idn_serial is the serial number in the probe reply, "
                 "but the profile '34461A' (dmm.json) has no match.probe"}},
        BadFile{"IdnSerialWithoutASerialGroup",
                [](nlohmann::json& d) { d["instruments"][1]["profile"] = "DP832"; },
                {"instruments[1] 'psu-2': idn_serial is the serial number in the probe reply, "
                 "but the profile 'DP832' (dp832.json) has a probe reply pattern with no group "
                 "named serial: (?P<serial>...)"}}),
    [](const ::testing::TestParamInfo<BadFile>& info) { return info.param.what; });

TEST(InstrumentCatalogTest, TextThatIsNotJsonIsRefusedNamingTheFile) {
  for (const char* text : {"{\"instruments\": [", "", "instruments: []"}) {
    absl::StatusOr<std::vector<NamedInstrument>> parsed =
        ParseInstrumentsFile(text, "/etc/labgate/instruments.json", Profiles());
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument) << text;
    EXPECT_EQ(parsed.status().message(),
              "instruments file /etc/labgate/instruments.json: not valid JSON")
        << text;
  }
}

TEST(InstrumentCatalogTest, WithNoProfilesLoadedTheErrorSaysSo) {
  absl::StatusOr<std::vector<NamedInstrument>> parsed =
      ParseInstrumentsFile(kBench, "bench.json", {});
  EXPECT_THAT(std::string(parsed.status().message()),
              HasSubstr("instruments[0] 'psu-1': no profile has the model 'SIM-PSU'; no profiles "
                        "are loaded (--profiles DIR)"));
}

// Real files in a fresh directory, as --profiles and --instruments name them.
class LoadInstrumentCatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern =
        (std::filesystem::path(::testing::TempDir()) / "labgate-catalog-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    std::filesystem::create_directory(profiles_dir());
    std::ofstream(profiles_dir() / "a-sim-psu.json") << kSimPsu;
    std::ofstream(profiles_dir() / "b-dmm.json") << kMeter;
    std::ofstream(profiles_dir() / "c-dp832.json") << kRigol;
    std::ofstream(instruments_file()) << kBench;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path profiles_dir() const { return dir_ / "profiles"; }
  std::filesystem::path instruments_file() const { return dir_ / "instruments.json"; }

  std::filesystem::path dir_;
};

TEST_F(LoadInstrumentCatalogTest, LoadsProfilesAndInstrumentsFromRealFiles) {
  absl::StatusOr<std::shared_ptr<const InstrumentCatalog>> catalog =
      LoadInstrumentCatalog(profiles_dir().string(), instruments_file().string());
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  const InstrumentCatalog& loaded = **catalog;
  ASSERT_EQ(loaded.profiles.size(), 3u);
  ASSERT_EQ(loaded.instruments.size(), 4u);

  const NamedInstrument* psu = loaded.Find("psu-1");
  ASSERT_NE(psu, nullptr);
  EXPECT_EQ(psu->bench, "bench-2");
  const InstrumentProfile* profile = loaded.ProfileFor(psu->profile);
  ASSERT_NE(profile, nullptr);
  EXPECT_EQ(profile->source, (profiles_dir() / "a-sim-psu.json").string());
  EXPECT_EQ(profile->settings.baud_rate, 9600);
  EXPECT_EQ(loaded.Find("psu-3"), nullptr);
  EXPECT_EQ(loaded.ProfileFor("DP833"), nullptr);
}

TEST_F(LoadInstrumentCatalogTest, EitherPartMayBeLeftOut) {
  absl::StatusOr<std::shared_ptr<const InstrumentCatalog>> nothing = LoadInstrumentCatalog("", "");
  ASSERT_TRUE(nothing.ok()) << nothing.status();
  EXPECT_TRUE((*nothing)->profiles.empty());
  EXPECT_TRUE((*nothing)->instruments.empty());

  absl::StatusOr<std::shared_ptr<const InstrumentCatalog>> profiles_only =
      LoadInstrumentCatalog(profiles_dir().string(), "");
  ASSERT_TRUE(profiles_only.ok()) << profiles_only.status();
  EXPECT_EQ((*profiles_only)->profiles.size(), 3u);
  EXPECT_TRUE((*profiles_only)->instruments.empty());
}

TEST_F(LoadInstrumentCatalogTest, WhatCannotLoadIsNamed) {
  absl::StatusOr<std::shared_ptr<const InstrumentCatalog>> no_profiles =
      LoadInstrumentCatalog("", instruments_file().string());
  EXPECT_EQ(no_profiles.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(no_profiles.status().message()),
              AllOf(HasSubstr(instruments_file().string()), HasSubstr("needs --profiles DIR")));

  const std::string missing = (dir_ / "missing.json").string();
  absl::StatusOr<std::shared_ptr<const InstrumentCatalog>> no_file =
      LoadInstrumentCatalog(profiles_dir().string(), missing);
  EXPECT_EQ(no_file.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(no_file.status().message()),
              HasSubstr("cannot read the instruments file " + missing));

  std::ofstream(instruments_file()) << R"({"instruments": [
    {"name": "psu-1", "profile": "SIM-PSU", "match": {"usb_serial": "A10K1234"}},
    {"name": "psu-2", "profile": "SIM-PSU", "match": {"usb_serial": "A10K1234"}}]})";
  absl::StatusOr<std::shared_ptr<const InstrumentCatalog>> clash =
      LoadInstrumentCatalog(profiles_dir().string(), instruments_file().string());
  EXPECT_EQ(clash.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(clash.status().message(), "instruments file " + instruments_file().string() +
                                          ": psu-1 and psu-2 both match usb_serial 'A10K1234'");

  std::ofstream(profiles_dir() / "d-broken.json") << R"({"model": "X", "colour": "red"})";
  absl::StatusOr<std::shared_ptr<const InstrumentCatalog>> bad_profile =
      LoadInstrumentCatalog(profiles_dir().string(), instruments_file().string());
  EXPECT_THAT(std::string(bad_profile.status().message()),
              AllOf(HasSubstr("d-broken.json"), HasSubstr("colour")));
}

}  // namespace
}  // namespace labgate::serial
