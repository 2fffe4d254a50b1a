// Locating named instruments: by USB serial among the listed ports (refusing a device whose USB
// ids are not the profile's, and a serial shared by several ports), by a path that must resolve,
// by a fixed path that must exist, and by probe (the ports worth probing); and reading the
// serial number out of a probe reply.
//
// No USB device exists on this machine, so the port lists below are recorded sp_list_ports
// answers (libserialport on Linux, as DetailsOf turns them into PortDetails) for real adapters.
// by_path and port_name use real files and symlinks in a temporary directory.
#include "serial-service/instruments/instrument_locator.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>

namespace labgate::serial {
namespace {

PortDetails Usb(const char* name, int vid, int pid, std::optional<std::string> serial,
                const char* manufacturer, const char* product) {
  PortDetails port;
  port.port_name = name;
  port.transport = Transport::kUsb;
  port.usb_vid = vid;
  port.usb_pid = pid;
  port.serial_number = std::move(serial);
  port.manufacturer = manufacturer;
  port.product = product;
  port.description = product;
  return port;
}

PortDetails Native(const char* name) {
  PortDetails port;
  port.port_name = name;
  port.description = "ttyS0";
  return port;
}

// Recorded: a Prolific PL2303 (no serial number), an FTDI FT232R with serial A10K1234 in front
// of the simulated supply, a Rigol DP832's own USB CDC port, both halves of an FTDI FT2232H
// (one serial number for two ports) and an on-board UART.
const std::vector<PortDetails>& Listed() {
  static const auto* listed = new std::vector<PortDetails>{
      Usb("/dev/ttyUSB0", 0x067b, 0x2303, std::nullopt, "Prolific Technology Inc.",
          "USB-Serial Controller"),
      Usb("/dev/ttyUSB1", 0x0403, 0x6001, "A10K1234", "FTDI", "FT232R USB UART"),
      Usb("/dev/ttyACM0", 0x1ab1, 0x0e11, "DP8A123456789", "Rigol Technologies", "DP800 Serial"),
      Usb("/dev/ttyUSB2", 0x0403, 0x6010, "FT2X9QZ", "FTDI", "Dual RS232-HS"),
      Usb("/dev/ttyUSB3", 0x0403, 0x6010, "FT2X9QZ", "FTDI", "Dual RS232-HS"),
      Native("/dev/ttyS0"),
  };
  return *listed;
}

const InstrumentProfile& Profile(const std::string& model) {
  static const auto* profiles = [] {
    auto* parsed = new std::map<std::string, InstrumentProfile>;
    for (const char* text : {
             R"({"model": "SIM-PSU", "match": {"usb": {"vid": "0x0403", "pid": "0x6001"},
                 "probe": {"reply": "^LABGATE,SIM-PSU,(?P<serial>[^,]+),"}}})",
             R"({"model": "DP832", "match": {"usb": {"vid": "0x1AB1", "pid": "0x0E11",
                 "manufacturer": "Rigol Technologies"}}})",
             R"({"model": "DUAL", "match": {"usb": {"vid": "0x0403", "pid": "0x6010"}}})",
             R"({"model": "GPD", "match": {"usb": {"vid": "0x2184"},
                 "probe": {"reply": "^GW INSTEK,GPD-4303S,SN:(?P<serial>\\w+),"}}})",
             R"({"model": "ANY", "match": {"probe": {"reply": "^LABGATE,(?P<serial>\\w+)?"}}})",
             R"({"model": "NOSERIAL", "match": {"probe": {"reply": "^LABGATE,"}}})",
             R"({"model": "PLAIN"})",
         }) {
      absl::StatusOr<InstrumentProfile> profile = ParseInstrumentProfile(text, "test");
      EXPECT_TRUE(profile.ok()) << profile.status();
      if (!profile.ok()) continue;
      std::string model = profile->model;
      parsed->emplace(std::move(model), *std::move(profile));
    }
    return parsed;
  }();
  return profiles->at(model);
}

NamedInstrument Instrument(const std::string& model, InstrumentMatch::Kind kind,
                           std::string value) {
  NamedInstrument instrument;
  instrument.name = "psu-2";
  instrument.profile = model;
  instrument.match = {kind, std::move(value)};
  return instrument;
}

struct ListedCase {
  const char* what;
  const char* model;
  InstrumentMatch::Kind kind;
  const char* value;
  std::optional<std::string> path;
  std::vector<std::string> probe_candidates;
  std::string absent_reason;
};

class LocateListedTest : public ::testing::TestWithParam<ListedCase> {};

TEST_P(LocateListedTest, FindsWhatTheListingSays) {
  const ListedCase& c = GetParam();
  const InstrumentLocation location =
      LocateInstrument(Instrument(c.model, c.kind, c.value), Profile(c.model), Listed());
  EXPECT_EQ(location.path, c.path);
  EXPECT_EQ(location.probe_candidates, c.probe_candidates);
  EXPECT_EQ(location.absent_reason, c.absent_reason);
}

using Kind = InstrumentMatch::Kind;

INSTANTIATE_TEST_SUITE_P(
    InstrumentLocatorTest, LocateListedTest,
    ::testing::Values(
        ListedCase{"UsbSerialOnTheProfilesAdapter",
                   "SIM-PSU",
                   Kind::kUsbSerial,
                   "A10K1234",
                   "/dev/ttyUSB1",
                   {},
                   ""},
        ListedCase{"UsbSerialWithManufacturerAndUppercaseIds",
                   "DP832",
                   Kind::kUsbSerial,
                   "DP8A123456789",
                   "/dev/ttyACM0",
                   {},
                   ""},
        ListedCase{"UsbSerialWithNoUsbMatchInTheProfile",
                   "PLAIN",
                   Kind::kUsbSerial,
                   "A10K1234",
                   "/dev/ttyUSB1",
                   {},
                   ""},
        ListedCase{"UsbSerialOnAnotherModel",
                   "DP832",
                   Kind::kUsbSerial,
                   "A10K1234",
                   std::nullopt,
                   {},
                   "the device with USB serial 'A10K1234' at /dev/ttyUSB1 is not a DP832 (vid "
                   "0x1AB1, pid 0x0E11, manufacturer 'Rigol Technologies'): it has vid 0x0403, "
                   "pid 0x6001, manufacturer 'FTDI', product 'FT232R USB UART'"},
        ListedCase{"UsbSerialNotListed",
                   "SIM-PSU",
                   Kind::kUsbSerial,
                   "A10K9999",
                   std::nullopt,
                   {},
                   "no listed port has USB serial 'A10K9999'"},
        ListedCase{"UsbSerialOnTwoPortsOfOneAdapter",
                   "DUAL",
                   Kind::kUsbSerial,
                   "FT2X9QZ",
                   std::nullopt,
                   {},
                   "USB serial 'FT2X9QZ' is on 2 listed ports (/dev/ttyUSB2, /dev/ttyUSB3); match "
                   "this instrument by_path instead"},
        ListedCase{"IdnSerialProbesThePortsWithTheProfilesIds",
                   "SIM-PSU",
                   Kind::kIdnSerial,
                   "0002",
                   std::nullopt,
                   {"/dev/ttyUSB1"},
                   ""},
        ListedCase{"IdnSerialWithNoUsbMatchProbesEveryPortInOrder",
                   "ANY",
                   Kind::kIdnSerial,
                   "0002",
                   std::nullopt,
                   {"/dev/ttyUSB0", "/dev/ttyUSB1", "/dev/ttyACM0", "/dev/ttyUSB2", "/dev/ttyUSB3",
                    "/dev/ttyS0"},
                   ""},
        ListedCase{"IdnSerialWithNoPortOfTheModel",
                   "GPD",
                   Kind::kIdnSerial,
                   "GEX123",
                   std::nullopt,
                   {},
                   "no listed port is a GPD (vid 0x2184) to probe for serial 'GEX123'"}),
    [](const ::testing::TestParamInfo<ListedCase>& info) { return info.param.what; });

TEST(InstrumentLocatorTest, IdnSerialWithNothingListed) {
  const InstrumentLocation location =
      LocateInstrument(Instrument("ANY", Kind::kIdnSerial, "0002"), Profile("ANY"), {});
  EXPECT_FALSE(location.path.has_value());
  EXPECT_TRUE(location.probe_candidates.empty());
  EXPECT_EQ(location.absent_reason, "no port is listed to probe for serial '0002'");
}

TEST(InstrumentLocatorTest, FitsUsbMatchComparesIdsAsNumbersAndNamesExactly) {
  const std::vector<PortDetails>& listed = Listed();
  struct Case {
    const char* model;
    size_t port;
    bool fits;
  };
  for (const Case& c : std::vector<Case>{
           {"SIM-PSU", 1, true},   // 0x0403:0x6001
           {"SIM-PSU", 3, false},  // the FT2232H's pid 0x6010
           {"SIM-PSU", 5, false},  // an on-board UART has no USB ids (-1)
           {"DP832", 2, true},     // "0x1AB1" is 0x1ab1
           {"DUAL", 4, true},      //
           {"GPD", 0, false},      //
           {"PLAIN", 5, true},     // no USB match: every port fits
       }) {
    EXPECT_EQ(FitsUsbMatch(Profile(c.model), listed[c.port]), c.fits)
        << c.model << " on " << listed[c.port].port_name;
  }
  PortDetails other_maker = listed[2];
  other_maker.manufacturer = "RIGOL";
  EXPECT_FALSE(FitsUsbMatch(Profile("DP832"), other_maker)) << "names compare exactly";
  other_maker.manufacturer.reset();
  EXPECT_FALSE(FitsUsbMatch(Profile("DP832"), other_maker)) << "a missing name does not fit";
}

TEST(InstrumentLocatorTest, TheSerialComesOutOfAMatchingProbeReply) {
  const InstrumentProfile& psu = Profile("SIM-PSU");
  EXPECT_TRUE(ProbeReplyMatches(psu, "LABGATE,SIM-PSU,0002,1.0\n"));
  EXPECT_EQ(SerialInProbeReply(psu, "LABGATE,SIM-PSU,0002,1.0\n"), "0002");
  EXPECT_FALSE(ProbeReplyMatches(psu, "RIGOL TECHNOLOGIES,DP832,DP8A1,00.01.14\n"));
  EXPECT_EQ(SerialInProbeReply(psu, "RIGOL TECHNOLOGIES,DP832,DP8A1,00.01.14\n"), std::nullopt);

  // The reply matches, but no serial: the pattern has no such group, or it took no part.
  EXPECT_TRUE(ProbeReplyMatches(Profile("NOSERIAL"), "LABGATE,SIM-PSU,0002,1.0"));
  EXPECT_EQ(SerialInProbeReply(Profile("NOSERIAL"), "LABGATE,SIM-PSU,0002,1.0"), std::nullopt);
  EXPECT_TRUE(ProbeReplyMatches(Profile("ANY"), "LABGATE,"));
  EXPECT_EQ(SerialInProbeReply(Profile("ANY"), "LABGATE,"), std::nullopt);
  EXPECT_EQ(SerialInProbeReply(Profile("ANY"), "LABGATE,X77"), "X77");

  EXPECT_FALSE(ProbeReplyMatches(Profile("PLAIN"), "LABGATE,SIM-PSU,0002,1.0"))
      << "no probe, nothing to match";
  EXPECT_EQ(SerialInProbeReply(Profile("PLAIN"), "LABGATE,SIM-PSU,0002,1.0"), std::nullopt);
}

// A udev-like tree in a temporary directory: a device node stand-in and a by-id link to it.
class LocatePathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern =
        (std::filesystem::path(::testing::TempDir()) / "labgate-locator-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    std::ofstream(dir_ / "ttyUSB1") << "";
    std::filesystem::create_directories(dir_ / "serial" / "by-id");
    std::filesystem::create_symlink("../../ttyUSB1", by_id());
    std::filesystem::create_symlink("../../ttyUSB7", dir_ / "serial" / "by-id" / "gone");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path by_id() const {
    return dir_ / "serial" / "by-id" / "usb-FTDI_FT232R_USB_UART_A10K1234-if00-port0";
  }

  InstrumentLocation Locate(Kind kind, const std::filesystem::path& path) const {
    return LocateInstrument(Instrument("SIM-PSU", kind, path.string()), Profile("SIM-PSU"),
                            Listed());
  }

  std::filesystem::path dir_;
};

TEST_F(LocatePathTest, ByPathFollowsTheLinkToTheDevice) {
  const InstrumentLocation location = Locate(Kind::kByPath, by_id());
  EXPECT_EQ(location.path, std::filesystem::canonical(dir_ / "ttyUSB1").string());
  EXPECT_TRUE(location.probe_candidates.empty());
  EXPECT_EQ(location.absent_reason, "");
}

TEST_F(LocatePathTest, ByPathThatDoesNotResolveIsAbsent) {
  for (const std::filesystem::path& path :
       {dir_ / "serial" / "by-id" / "gone", dir_ / "serial" / "by-id" / "never"}) {
    const InstrumentLocation location = Locate(Kind::kByPath, path);
    EXPECT_FALSE(location.path.has_value()) << path;
    EXPECT_EQ(location.absent_reason, "by_path '" + path.string() + "' does not exist");
  }
}

TEST_F(LocatePathTest, PortNameIsThePathItselfWhenItExists) {
  EXPECT_EQ(Locate(Kind::kPortName, by_id()).path, by_id().string()) << "not resolved";
  EXPECT_EQ(Locate(Kind::kPortName, dir_ / "ttyUSB1").path, (dir_ / "ttyUSB1").string());
  const InstrumentLocation missing = Locate(Kind::kPortName, dir_ / "ttyUSB7");
  EXPECT_FALSE(missing.path.has_value());
  EXPECT_EQ(missing.absent_reason,
            "port_name '" + (dir_ / "ttyUSB7").string() + "' does not exist");
}

}  // namespace
}  // namespace labgate::serial
