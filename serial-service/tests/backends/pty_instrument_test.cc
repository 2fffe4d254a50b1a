// Named instruments over the real libserialport on ptys, through the gRPC service: a simulated
// power supply whose profile caps voltage and current, found by path, by its probe reply and by
// a USB serial number; the wrong instrument on the expected path; a device that comes back
// under another name; and instrument files that do not load.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "common/service_host.h"
#include "serial-service/ports/written_line.h"
#include "serial-service/serial_service.h"
#include "serial-service/tests/serial_test_client.h"
#include "tests/serial_harness/pty_device.h"

namespace labgate::serial {
namespace {

using serial_harness::InstrumentMode;
using serial_harness::PtyDevice;
using std::chrono::milliseconds;
using testing::SerialClient;

// The harness's supply: 30 V and 3 A at most, capped here at 5 V, 1 V per step, and 1 A, with a
// person asked above 0.5 A.
constexpr char kSupplyProfile[] = R"json({
  "model": "SIM-PSU",
  "match": {"probe": {"command": "*IDN?", "reply": "^LABGATE,SIM-PSU,(?P<serial>[^,]+),"}},
  "settings": {"baud_rate": 115200, "terminator": "\n", "timeout_ms": 2000},
  "tags": ["psu"],
  "quantities": {
    "voltage": {"unit": "V", "min": 0, "max": 30, "default": 0,
                "headers": ["[SOURce#:]VOLTage[:LEVel][:IMMediate][:AMPLitude]"]},
    "current": {"unit": "A", "min": 0, "max": 3,
                "headers": ["[SOURce#:]CURRent[:LEVel][:IMMediate][:AMPLitude]"]}
  },
  "lists": [{"header": "APPLy", "channel_parameter": 0,
             "channels": {"CH1": 1, "CH2": 2, "CH3": 3},
             "quantities": {"1": "voltage", "2": "current"}}],
  "limits": [
    {"name": "max-voltage", "quantity": "voltage", "max": 5},
    {"name": "step-voltage", "quantity": "voltage", "max_step": 1},
    {"name": "max-current", "quantity": "current", "max": 1, "confirm_above": 0.5}
  ],
  "sequences": {"safe": {"steps": [{"send": "OUTP OFF"}]}},
  "readings": {"voltage": {"command": "(?i)^(SOUR[a-z]*\\d?:)?VOLT(age)?\\?",
                           "pattern": "^(?P<value>[-+0-9.E]+)$", "unit": "V"}}
})json";

// A meter nothing here simulates: the harness's plain SCPI instrument is not one.
constexpr char kMeterProfile[] = R"json({
  "model": "SIM-DMM",
  "match": {"probe": {"reply": "^LABGATE,SIM-DMM,"}},
  "settings": {"baud_rate": 115200, "terminator": "\n", "timeout_ms": 1000}
})json";

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
}

class PtyInstrumentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(serial_harness::ShimLoaded()) << "tiocm_shim.so is not preloaded";
    char pattern[] = "/tmp/labgate-instruments-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    std::filesystem::create_directory(dir_ + "/profiles");
    WriteFile(dir_ + "/profiles/sim-psu.json", kSupplyProfile);
    WriteFile(dir_ + "/profiles/sim-dmm.json", kMeterProfile);
    supply_ = Device(InstrumentMode::kPowerSupply, "PSU0042");
    ASSERT_NE(supply_, nullptr);
  }
  void TearDown() override {
    if (service_) service_->Shutdown();
    if (host_) host_->Shutdown(std::chrono::seconds(2));
    std::filesystem::remove_all(dir_);
  }

  static std::unique_ptr<PtyDevice> Device(InstrumentMode mode, const std::string& serial = "") {
    auto device = PtyDevice::Create(mode);
    EXPECT_TRUE(device.ok()) << "pty harness: " << device.status();
    if (!device.ok()) return nullptr;
    if (!serial.empty()) (*device)->set_serial(serial);
    return std::move(*device);
  }

  // Starts the service with the profiles and `instruments` (the file's JSON). `listed` is what
  // the host lists in place of libserialport's enumeration.
  // `policy`: the safety policy's JSON, if any.
  // `lister`, when given, replaces `listed` (a listing that fails, say).
  void Start(const std::string& instruments, const std::vector<PortDetails>& listed = {},
             const std::string& policy = "",
             std::function<absl::StatusOr<std::vector<PortDetails>>()> lister = nullptr) {
    WriteFile(dir_ + "/instruments.json", instruments);
    SerialServiceOptions options;
    options.profiles_dir = dir_ + "/profiles";
    options.instruments_file = dir_ + "/instruments.json";
    if (!policy.empty()) {
      WriteFile(dir_ + "/policy.json", policy);
      options.policy_file = dir_ + "/policy.json";
    }
    options.port_lister = lister ? std::move(lister) : [listed] { return listed; };
    auto service = CreateSerialService(options);
    ASSERT_TRUE(service.ok()) << service.status();
    service_ = std::move(*service);
    auto host = ServiceHost::Start("", {service_.get()});
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = std::move(*host);
    alice_ = std::make_unique<SerialClient>(host_->InProcessChannel(), "alice");
  }
  // Waits (up to 10 s) until the supply has applied `count` settings: it reads in its own time.
  void AwaitApplied(size_t count) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (supply_->Applied().size() < count && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(milliseconds(5));
    }
  }
  // A send_expect on psu-2 that sends `command`, then holds the port for `hold_ms`, waiting for
  // what never comes.
  static v1::SendExpectRequest SendThenHold(const std::string& command, int64_t hold_ms) {
    v1::SendExpectRequest script;
    script.set_port_name("psu-2");
    script.add_steps()->set_send(command);
    v1::ScriptStep* hold = script.add_steps();
    hold->add_expect("never");
    hold->set_timeout_ms(hold_ms);
    return script;
  }
  // A meter (the harness's plain SCPI instrument) and the supply, both listed by the host, with
  // `instruments`; the meter, or null when the harness could not make it.
  std::unique_ptr<PtyDevice> StartWithAMeterAndTheSupplyListed(const std::string& instruments) {
    std::unique_ptr<PtyDevice> meter = Device(InstrumentMode::kScpi);
    if (meter == nullptr) return nullptr;
    PortDetails first;
    first.port_name = meter->path();
    PortDetails second;
    second.port_name = supply_->path();
    Start(instruments, {first, second});
    return meter;
  }
  // The supply as psu-2, found at its path.
  void StartWithSupplyAtItsPath() {
    Start(absl::StrCat(R"({"instruments": [{"name": "psu-2", "profile": "SIM-PSU",
        "match": {"port_name": ")",
                       supply_->path(), R"("}, "bench": "bench-2", "tags": ["supply"]}]})"));
  }

  grpc::Status OpenInstrument(const std::string& name, v1::OpenPortResponse* opened = nullptr) {
    v1::OpenPortRequest request;
    request.set_instrument(name);
    return alice_->Open(request, opened);
  }
  v1::ListInstrumentsResponse Instruments() {
    v1::ListInstrumentsResponse listed;
    grpc::Status status = alice_->stub()->ListInstruments(alice_->Context().get(),
                                                          v1::ListInstrumentsRequest(), &listed);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return listed;
  }
  v1::GetStatusResponse Status(const std::string& port) {
    v1::GetStatusResponse status;
    EXPECT_TRUE(alice_->Status(port, &status).ok());
    return status;
  }
  // Waits (up to 5 s) until the port's state is `state`.
  bool AwaitState(const std::string& port, v1::PortState state) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (std::chrono::steady_clock::now() < deadline) {
      if (Status(port).status() == state) return true;
      std::this_thread::sleep_for(milliseconds(20));
    }
    return false;
  }

  std::string dir_;
  std::unique_ptr<PtyDevice> supply_;
  std::unique_ptr<SerialGrpcService> service_;
  std::unique_ptr<ServiceHost> host_;
  std::unique_ptr<SerialClient> alice_;
};

TEST_F(PtyInstrumentTest, LimitsRefuseOverLimitValuesAndNothingRefusedReachesTheSupply) {
  StartWithSupplyAtItsPath();
  v1::OpenPortResponse opened;
  grpc::Status open = OpenInstrument("psu-2", &opened);
  ASSERT_TRUE(open.ok()) << open.error_message();
  EXPECT_EQ(opened.port_name(), "psu-2");
  EXPECT_EQ(opened.device_path(), supply_->path());
  EXPECT_EQ(opened.identity(), "LABGATE,SIM-PSU,PSU0042,1.0");
  EXPECT_EQ(opened.settings().baud_rate(), 115200) << "the profile's settings";
  EXPECT_EQ(opened.settings().terminator(), "\n");

  grpc::Status refused = alice_->Write("psu-2", "VOLT 12");
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(refused.error_message(), "12 V exceeds max-voltage (5 V) on psu-2 channel 1");

  ASSERT_TRUE(alice_->Write("psu-2", "VOLT 4.9").ok());
  refused = alice_->Write("psu-2", "VOLT 2.9");
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_TRUE(absl::StrContains(refused.error_message(), "step-voltage"))
      << refused.error_message();
  EXPECT_TRUE(absl::StrContains(refused.error_message(), "2 V")) << refused.error_message();

  refused = alice_->Write("psu-2", "volt 12000mV");
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_TRUE(absl::StrContains(refused.error_message(), "12 V exceeds max-voltage"))
      << refused.error_message();

  v1::QueryResponse reply;
  refused = alice_->Query("psu-2", "APPL CH1,12,0.5;VOLT?", 2000, &reply);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(refused.error_message(), "12 V exceeds max-voltage (5 V) on psu-2 channel 1");

  // send_expect and the profile's own sequences are bound by the same rules.
  v1::SendExpectRequest script;
  script.set_port_name("psu-2");
  script.add_steps()->set_send("VOLT 4.5");
  script.add_steps()->set_send("SOUR1:VOLT:LEV 6");
  v1::SendExpectResponse ran;
  refused = alice_->stub()->SendExpect(alice_->Context().get(), script, &ran);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(refused.error_message(), "6 V exceeds max-voltage (5 V) on psu-2 channel 1");

  // Above confirm_above a person must approve; a direct caller cannot.
  refused = alice_->Write("psu-2", "CURR 0.8");
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_TRUE(absl::StrContains(refused.error_message(),
                                "confirmation required: 0.8 A is above max-current (0.5 A)"))
      << refused.error_message();
  ASSERT_TRUE(alice_->Write("psu-2", "CURR 0.4").ok());

  ASSERT_TRUE(alice_->Query("psu-2", "VOLT?", 2000, &reply).ok());
  EXPECT_EQ(reply.data(), "4.9");
  EXPECT_EQ(supply_->Supply(1).volts, 4.9);
  EXPECT_EQ(supply_->Supply(1).amps, 0.4);
  EXPECT_EQ(supply_->Applied(), (std::vector<std::string>{"VOLT 1 4.9", "CURR 1 0.4"}))
      << "nothing refused reached the supply";
  EXPECT_EQ(supply_->Received(), "*IDN?\nVOLT 4.9\nCURR 0.4\nVOLT?\n");
}

// A device joins writes into lines: "VO" and then "LT 35" is VOLT 35 to it, though neither
// write alone sets anything. Binary writes (hex) get no terminator, so they can split a line.
TEST_F(PtyInstrumentTest, AWriteCompletingALineBegunEarlierIsJudgedOnTheWholeLine) {
  Start(absl::StrCat(R"({"instruments": [{"name": "psu-2", "profile": "SIM-PSU",
        "match": {"port_name": ")",
                     supply_->path(), R"("}}]})"),
        {}, absl::StrCat(R"({"ports": [{"match": ")", supply_->path(), R"(",
            "deny": [{"name": "output-stays-off", "pattern": "^OUTP(UT)? +ON"}]}]})"));
  ASSERT_TRUE(OpenInstrument("psu-2").ok());
  auto hex = [](const std::string& text) { return absl::BytesToHexString(text); };

  ASSERT_TRUE(alice_->Write("psu-2", hex("VO"), v1::ENCODING_HEX).ok()) << "it sets nothing yet";
  grpc::Status refused = alice_->Write("psu-2", hex("LT 35\n"), v1::ENCODING_HEX);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_TRUE(absl::StrContains(refused.error_message(), "'VOLT 35' on psu-2"))
      << refused.error_message();
  EXPECT_TRUE(absl::StrContains(refused.error_message(), "completes the line 'VO'"))
      << refused.error_message();
  // Within the limits too: no check saw the setting whole, so nobody could have been asked.
  refused = alice_->Write("psu-2", hex("LT 0.3\n"), v1::ENCODING_HEX);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED) << refused.error_message();

  // A line kept in more pieces than can be read whole is refused until it is ended.
  ASSERT_TRUE(alice_->Write("psu-2", hex("\n"), v1::ENCODING_HEX).ok());
  for (size_t piece = 0; piece < WrittenLine::kMaxPieces; ++piece) {
    ASSERT_TRUE(alice_->Write("psu-2", hex("X"), v1::ENCODING_HEX).ok()) << "piece " << piece;
  }
  refused = alice_->Write("psu-2", hex("X"), v1::ENCODING_HEX);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_TRUE(absl::StrContains(refused.error_message(),
                                "cannot verify a line on psu-2 written in more than 16 writes"))
      << refused.error_message();

  // Ending the line, then whole commands, pass; a terminator alone adds nothing to judge.
  ASSERT_TRUE(alice_->Write("psu-2", hex("\n"), v1::ENCODING_HEX).ok());
  ASSERT_TRUE(alice_->Write("psu-2", hex("VOLT 0.5"), v1::ENCODING_HEX).ok());
  ASSERT_TRUE(alice_->Write("psu-2", hex("\n"), v1::ENCODING_HEX).ok());
  ASSERT_TRUE(alice_->Write("psu-2", "VOLT 1").ok());

  // The policy's patterns read the joined line as well.
  ASSERT_TRUE(alice_->Write("psu-2", hex("OUTP"), v1::ENCODING_HEX).ok());
  refused = alice_->Write("psu-2", hex(" ON\n"), v1::ENCODING_HEX);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_TRUE(absl::StrContains(refused.error_message(), "deny rule 'output-stays-off'"))
      << refused.error_message();

  // Closing does not finish the line: the device still holds "OUTP". Opened again, the probe ends
  // that line first, so the supply reads the probe as itself and is identified.
  ASSERT_TRUE(alice_->Close("psu-2").ok());
  grpc::Status reopened = OpenInstrument("psu-2");
  ASSERT_TRUE(reopened.ok()) << reopened.error_message();

  // What reached the supply: the probes, the unfinished pieces, and the whole settings only.
  EXPECT_EQ(supply_->Received(), "*IDN?\nVO\n" + std::string(WrittenLine::kMaxPieces, 'X') +
                                     "\nVOLT 0.5\nVOLT 1\nOUTP\n*IDN?\n");
  // (The simulated supply reads a bare OUTP as OUTP OFF.)
  EXPECT_EQ(supply_->Applied(), (std::vector<std::string>{"VOLT 1 0.5", "VOLT 1 1", "OUTP OFF"}));
}

// A script's sends set the supply as they go out: what a cancelled script already sent is the
// supply's, and the step rule counts from it.
TEST_F(PtyInstrumentTest, WhatACancelledScriptAlreadySentCountsForTheNextStep) {
  StartWithSupplyAtItsPath();
  ASSERT_TRUE(OpenInstrument("psu-2").ok());
  const v1::SendExpectRequest script = SendThenHold("VOLT 0.9", 60000);
  grpc::ClientContext context;
  context.AddMetadata("labgate-owner", "alice");
  v1::SendExpectResponse ran;
  std::promise<grpc::Status> finished;
  alice_->stub()->async()->SendExpect(
      &context, &script, &ran, [&](const grpc::Status& status) { finished.set_value(status); });
  AwaitApplied(1);
  ASSERT_EQ(supply_->Applied(), (std::vector<std::string>{"VOLT 1 0.9"}));
  context.TryCancel();
  auto done = finished.get_future();
  ASSERT_EQ(done.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_EQ(done.get().error_code(), grpc::StatusCode::CANCELLED);

  grpc::Status refused = alice_->Write("psu-2", "VOLT 2.5");
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED)
      << "a step of 1.6 V from the 0.9 V the script set";
  EXPECT_TRUE(absl::StrContains(refused.error_message(), "from 0.9 V to 2.5 V"))
      << refused.error_message();
  EXPECT_TRUE(alice_->Write("psu-2", "VOLT 1.8").ok());
}

// Two writes called at once were each judged against the same last value, so both passed the
// step rule and the supply took 0.5 V to 1.4 V to 0 V. The port's worker judges them again in
// the order they go out: the second is a step from the first.
TEST_F(PtyInstrumentTest, TwoWritesCalledAtOnceCannotBothStepFromOneValue) {
  StartWithSupplyAtItsPath();
  ASSERT_TRUE(OpenInstrument("psu-2").ok());
  // A script that sets 0.5 V and then holds the port, so that both writes wait behind it.
  const v1::SendExpectRequest script = SendThenHold("VOLT 0.5", 1500);
  auto held = std::async(std::launch::async, [&] {
    v1::SendExpectResponse ran;
    return alice_->stub()->SendExpect(alice_->Context().get(), script, &ran);
  });
  AwaitApplied(1);
  ASSERT_EQ(supply_->Applied(), (std::vector<std::string>{"VOLT 1 0.5"}));
  auto up = std::async(std::launch::async, [&] { return alice_->Write("psu-2", "VOLT 1.4"); });
  auto down = std::async(std::launch::async, [&] { return alice_->Write("psu-2", "VOLT 0"); });
  const grpc::Status wrote_up = up.get();
  const grpc::Status wrote_down = down.get();
  EXPECT_TRUE(held.get().ok());
  EXPECT_NE(wrote_up.ok(), wrote_down.ok())
      << "exactly one may go: " << wrote_up.error_message() << " / " << wrote_down.error_message();
  const grpc::Status& refused = wrote_up.ok() ? wrote_down : wrote_up;
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_TRUE(absl::StrContains(refused.error_message(), "a step of 1.4 V"))
      << refused.error_message();
  // The supply reads in its own time: wait for the write that went, then look for the other.
  AwaitApplied(2);
  const std::vector<std::string> applied = supply_->Applied();
  ASSERT_EQ(applied.size(), 2u);
  EXPECT_EQ(applied[1], wrote_up.ok() ? "VOLT 1 1.4" : "VOLT 1 0");
  EXPECT_FALSE(absl::StrContains(supply_->Received(), wrote_up.ok() ? "VOLT 0\n" : "VOLT 1.4"))
      << "nothing refused reached the supply: " << supply_->Received();
}

TEST_F(PtyInstrumentTest, AQuerysReplyCarriesTheReadingsTheProfileFindsInIt) {
  StartWithSupplyAtItsPath();
  ASSERT_TRUE(OpenInstrument("psu-2").ok());
  ASSERT_TRUE(alice_->Write("psu-2", "VOLT 3.3").ok());
  v1::QueryResponse reply;
  ASSERT_TRUE(alice_->Query("psu-2", "volt?", 2000, &reply).ok());
  ASSERT_EQ(reply.readings_size(), 1) << reply.DebugString();
  EXPECT_EQ(reply.readings(0).name(), "voltage");
  EXPECT_EQ(reply.readings(0).value(), 3.3);
  EXPECT_EQ(reply.readings(0).unit(), "V");
  ASSERT_TRUE(alice_->Query("psu-2", "CURR?", 2000, &reply).ok());
  EXPECT_EQ(reply.readings_size(), 0) << "a reply to another command holds no voltage";
  ASSERT_TRUE(alice_->Query("psu-2", "*IDN?", 2000, &reply).ok());
  EXPECT_EQ(reply.readings_size(), 0);
}

TEST_F(PtyInstrumentTest, ListInstrumentsShowsWhereEachIsWhoHasItAndItsLimits) {
  StartWithSupplyAtItsPath();
  v1::ListInstrumentsResponse listed = Instruments();
  ASSERT_EQ(listed.instruments_size(), 1);
  const v1::InstrumentInfo& psu = listed.instruments(0);
  EXPECT_EQ(psu.name(), "psu-2");
  EXPECT_EQ(psu.model(), "SIM-PSU");
  EXPECT_TRUE(psu.present());
  EXPECT_EQ(psu.port(), supply_->path());
  EXPECT_EQ(psu.bench(), "bench-2");
  EXPECT_EQ(psu.owner(), "");
  EXPECT_EQ(psu.match(), "port_name " + supply_->path());
  ASSERT_EQ(psu.tags_size(), 1);
  EXPECT_EQ(psu.tags(0), "supply");
  ASSERT_EQ(psu.limits_size(), 3);
  EXPECT_EQ(psu.limits(0).name(), "max-voltage");
  EXPECT_EQ(psu.limits(0).unit(), "V");
  EXPECT_EQ(psu.limits(0).max(), 5);
  EXPECT_EQ(psu.limits(2).confirm_above(), 0.5);

  ASSERT_TRUE(OpenInstrument("psu-2").ok());
  listed = Instruments();
  EXPECT_EQ(listed.instruments(0).owner(), "alice");
  EXPECT_TRUE(listed.instruments(0).open());
  // list_ports shows the instrument's name beside its path; status says both.
  v1::ListPortsResponse ports;
  ASSERT_TRUE(
      alice_->stub()->ListPorts(alice_->Context().get(), v1::ListPortsRequest(), &ports).ok());
  bool shown = false;
  for (const v1::PortInfo& port : ports.ports()) {
    if (port.port_name() == supply_->path()) shown = port.instrument() == "psu-2";
  }
  EXPECT_TRUE(shown) << ports.DebugString();
  const v1::GetStatusResponse status = Status("psu-2");
  EXPECT_EQ(status.instrument(), "psu-2");
  EXPECT_EQ(status.device_path(), supply_->path());
  // Its path is the same device: opening it directly is refused, not a second handle.
  grpc::Status again = alice_->Open(supply_->path(), 115200, "\n");
  EXPECT_EQ(again.error_code(), grpc::StatusCode::ALREADY_EXISTS) << again.error_message();
  // The profile's sequence runs under the instrument's name.
  v1::RunSequenceRequest safe;
  safe.set_port_name("psu-2");
  safe.set_name("safe");
  v1::SendExpectResponse ran;
  ASSERT_TRUE(alice_->stub()->RunSequence(alice_->Context().get(), safe, &ran).ok());
  EXPECT_TRUE(ran.completed());
}

// Opened by its path, a named instrument is still that instrument: its limits bind the port,
// and it shows as open under its name.
TEST_F(PtyInstrumentTest, AnInstrumentOpenedByItsPathKeepsItsLimits) {
  StartWithSupplyAtItsPath();
  ASSERT_TRUE(alice_->Open(supply_->path(), 115200, "\n").ok());
  grpc::Status refused = alice_->Write(supply_->path(), "VOLT 12");
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(refused.error_message(), "12 V exceeds max-voltage (5 V) on psu-2 channel 1");
  ASSERT_TRUE(alice_->Write(supply_->path(), "VOLT 2").ok());
  v1::QueryResponse reply;  // the supply has handled the write once it answers
  ASSERT_TRUE(alice_->Query(supply_->path(), "VOLT?", 2000, &reply).ok());
  EXPECT_EQ(reply.data(), "2");
  EXPECT_EQ(supply_->Applied(), std::vector<std::string>{"VOLT 1 2"});
  const v1::ListInstrumentsResponse listed = Instruments();
  ASSERT_EQ(listed.instruments_size(), 1);
  EXPECT_TRUE(listed.instruments(0).open());
  EXPECT_EQ(listed.instruments(0).owner(), "alice");
  grpc::Status again = OpenInstrument("psu-2");
  EXPECT_EQ(again.error_code(), grpc::StatusCode::ALREADY_EXISTS) << again.error_message();
  SerialClient bob(host_->InProcessChannel(), "bob");
  v1::OpenPortRequest request;
  request.set_instrument("psu-2");
  grpc::Status taken = bob.Open(request);
  EXPECT_EQ(taken.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_TRUE(absl::StrContains(taken.error_message(), "held by alice")) << taken.error_message();
  EXPECT_EQ(supply_->Received(), "VOLT 2\nVOLT?\n") << "no probe: a path is opened as it is";
}

TEST_F(PtyInstrumentTest, AnotherNameForTheInstrumentsDeviceIsStillTheInstrument) {
  StartWithSupplyAtItsPath();
  const std::string link = dir_ + "/link-to-psu";
  std::filesystem::create_symlink(supply_->path(), link);
  ASSERT_TRUE(alice_->Open(link, 115200, "\n").ok());
  grpc::Status refused = alice_->Write(link, "VOLT 12");
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(refused.error_message(), "12 V exceeds max-voltage (5 V) on psu-2 channel 1");
  ASSERT_TRUE(alice_->Write(link, "VOLT 2").ok());
  v1::QueryResponse reply;
  ASSERT_TRUE(alice_->Query(link, "VOLT?", 2000, &reply).ok());
  EXPECT_EQ(supply_->Applied(), std::vector<std::string>{"VOLT 1 2"});
  EXPECT_EQ(Status(link).device_path(), supply_->path());
  // A second spelling of the path is the same device, already held.
  SerialClient bob(host_->InProcessChannel(), "bob");
  const std::string spelled = absl::StrReplaceAll(supply_->path(), {{"/dev/", "/dev//./"}});
  grpc::Status taken = bob.Open(spelled, 115200, "\n");
  EXPECT_EQ(taken.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << taken.error_message();
  EXPECT_TRUE(absl::StrContains(taken.error_message(), "held by alice")) << taken.error_message();
  grpc::Status by_name = OpenInstrument("psu-2");
  EXPECT_EQ(by_name.error_code(), grpc::StatusCode::ALREADY_EXISTS) << by_name.error_message();
}

TEST_F(PtyInstrumentTest, ARelativePathToTheInstrumentsDeviceIsRefusedAndNothingIsWritten) {
  StartWithSupplyAtItsPath();
  // From labgate-serial's working directory, as many ".." as reach the root, then the pty.
  std::string relative;
  for (const auto& part : std::filesystem::current_path()) {
    if (part != "/") relative += "../";
  }
  relative += supply_->path().substr(1);
  ASSERT_EQ(std::filesystem::canonical(relative).string(), supply_->path());
  grpc::Status refused = alice_->Open(relative, 115200, "\n");
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(refused.error_message(),
            absl::StrCat("port_name \"", relative,
                         "\" is neither a device path (such as /dev/ttyUSB0) nor loop://NAME, "
                         "sim://MODEL or replay://SESSION_ID; relative paths are not opened"));
  EXPECT_FALSE(alice_->Write(relative, "VOLT 12").ok());
  EXPECT_EQ(supply_->Received(), "");
  // The instrument is free for whoever opens it by name, with its limits.
  ASSERT_TRUE(OpenInstrument("psu-2").ok());
}

TEST_F(PtyInstrumentTest, ACrOrLfThatIsNotTheInstrumentsLineEndIsRefusedAlsoAfterAReconfigure) {
  StartWithSupplyAtItsPath();
  ASSERT_TRUE(alice_->Open(supply_->path(), 115200, "\r").ok());
  // Read at every CR and LF, this is "VO" and "LT 12"; a device ending lines at CR reads VOLT 12.
  grpc::Status hidden = alice_->Write(supply_->path(), "VO\nLT 12");
  EXPECT_EQ(hidden.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(hidden.error_message(),
            "the write has a line feed (\\n) at byte 2 that is not part of the line end of psu-2 "
            "(\\r): the device would read its lines otherwise than the limits do. End each "
            "command with the line end only");
  // Another terminator from now on: the line ends are read at it.
  v1::ReconfigurePortRequest request;
  request.set_port_name(supply_->path());
  request.set_terminator("\n");
  v1::ReconfigurePortResponse reconfigured;
  ASSERT_TRUE(
      alice_->stub()->ReconfigurePort(alice_->Context().get(), request, &reconfigured).ok());
  grpc::Status after = alice_->Write(supply_->path(), "VO\rLT 12");
  EXPECT_EQ(after.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_TRUE(absl::StrContains(after.error_message(), "a carriage return (\\r) at byte 2"))
      << after.error_message();
  EXPECT_EQ(supply_->Received(), "");
  ASSERT_TRUE(alice_->Write(supply_->path(), "VOLT 2").ok());
  v1::QueryResponse reply;
  ASSERT_TRUE(alice_->Query(supply_->path(), "VOLT?", 2000, &reply).ok());
  EXPECT_EQ(supply_->Applied(), std::vector<std::string>{"VOLT 1 2"});
}

// With no terminator of its own the port takes the profile's line end (here \n), not SCPI's
// looser one (\n, which may follow \r).
TEST_F(PtyInstrumentTest, APortWithoutATerminatorReadsLineEndsAtTheProfiles) {
  StartWithSupplyAtItsPath();
  v1::OpenPortRequest open;
  open.set_port_name(supply_->path());
  open.set_baud_rate(115200);
  open.set_terminator("");
  ASSERT_TRUE(alice_->Open(open).ok());
  auto hex = [](const std::string& text) { return absl::BytesToHexString(text); };
  grpc::Status crlf = alice_->Write(supply_->path(), hex("VOLT 1\r\n"), v1::ENCODING_HEX);
  EXPECT_EQ(crlf.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_TRUE(absl::StrContains(crlf.error_message(),
                                "a carriage return (\\r) at byte 6 that is not part of the line "
                                "end of psu-2 (\\n)"))
      << crlf.error_message();
  EXPECT_EQ(supply_->Received(), "");
  ASSERT_TRUE(alice_->Write(supply_->path(), hex("VOLT 1\n"), v1::ENCODING_HEX).ok());
  AwaitApplied(1);
  EXPECT_EQ(supply_->Applied(), std::vector<std::string>{"VOLT 1 1"});
}

TEST_F(PtyInstrumentTest, ALinkCannotLoosenThePolicyRuleOfItsDevice) {
  const std::string link = dir_ + "/link-to-psu";
  std::filesystem::create_symlink(supply_->path(), link);
  Start(R"({"instruments": []})", {},
        absl::StrCat(R"({"ports": [{"match": ")", supply_->path(),
                     R"(", "read_only": true}, {"match": ")", dir_, R"(/*"}]})"));
  grpc::Status refused = alice_->Open(link, 115200, "\n");
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(refused.error_message(),
            absl::StrCat(link, " is ", supply_->path(), ", which the policy (", dir_,
                         "/policy.json) gives a rule of its own ('", supply_->path(),
                         "'): open it as ", supply_->path()));
  ASSERT_TRUE(alice_->Open(supply_->path(), 115200, "\n").ok()) << "under its own name it opens";
  EXPECT_EQ(alice_->Write(supply_->path(), "VOLT 1").error_code(),
            grpc::StatusCode::PERMISSION_DENIED)
      << "and its own rule, read-only, applies";
  EXPECT_EQ(supply_->Received(), "");
}

TEST_F(PtyInstrumentTest, APathIsRefusedWhenThePortsCannotBeListedToTellWhetherItIsAnInstrument) {
  Start(R"({"instruments": [{"name": "psu-2", "profile": "SIM-PSU",
             "match": {"usb_serial": "FT0042"}}]})",
        {}, "", [] {
          return absl::StatusOr<std::vector<PortDetails>>(absl::InternalError("sysfs unreadable"));
        });
  grpc::Status refused = alice_->Open(supply_->path(), 115200, "\n");
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(refused.error_message(),
            absl::StrCat("cannot tell whether ", supply_->path(),
                         " is a named instrument: listing ports failed: sysfs unreadable"));
  EXPECT_EQ(supply_->Received(), "");
}

TEST_F(PtyInstrumentTest, TheWrongInstrumentOnTheExpectedPathIsRefusedAndOnlyTheProbeWasWritten) {
  std::unique_ptr<PtyDevice> other = Device(InstrumentMode::kScpi);
  ASSERT_NE(other, nullptr);
  Start(absl::StrCat(R"({"instruments": [{"name": "dmm-1", "profile": "SIM-DMM",
      "match": {"port_name": ")",
                     other->path(), R"("}}]})"));
  grpc::Status refused = OpenInstrument("dmm-1");
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(refused.error_message(),
            absl::StrCat("the instrument at ", other->path(),
                         " is not dmm-1: expected a SIM-DMM (a reply to '*IDN?' matching "
                         "/^LABGATE,SIM-DMM,/), but it answered 'LABGATE,SIM-PTY,0001,1.0'"));
  EXPECT_EQ(other->Received(), "*IDN?\n") << "nothing but the probe was written";
  EXPECT_EQ(Status("dmm-1").status(), v1::PORT_STATE_CLOSED) << "the port was closed again";
}

// No USB device exists here: the host's listing is recorded libserialport answers (an FTDI
// adapter), and the instrument's device is the pty the listing names.
TEST_F(PtyInstrumentTest, AUsbSerialNumberFindsTheInstrumentWhereverTheListingPutsIt) {
  PortDetails ftdi;
  ftdi.port_name = supply_->path();
  ftdi.transport = Transport::kUsb;
  ftdi.usb_vid = 0x0403;
  ftdi.usb_pid = 0x6001;
  ftdi.serial_number = "A10K1234";
  ftdi.manufacturer = "FTDI";
  ftdi.product = "FT232R USB UART";
  PortDetails onboard;
  onboard.port_name = "/dev/ttyS0";
  Start(R"({"instruments": [
      {"name": "psu-2", "profile": "SIM-PSU", "match": {"usb_serial": "A10K1234"}},
      {"name": "psu-9", "profile": "SIM-PSU", "match": {"usb_serial": "B99"}}]})",
        {onboard, ftdi});
  v1::OpenPortResponse opened;
  ASSERT_TRUE(OpenInstrument("psu-2", &opened).ok());
  EXPECT_EQ(opened.device_path(), supply_->path());
  grpc::Status absent = OpenInstrument("psu-9");
  EXPECT_EQ(absent.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_TRUE(absl::StrContains(absent.error_message(), "psu-9 (usb_serial B99) is not present"))
      << absent.error_message();
  const v1::ListInstrumentsResponse listed = Instruments();
  ASSERT_EQ(listed.instruments_size(), 2);
  EXPECT_TRUE(listed.instruments(0).present());
  EXPECT_FALSE(listed.instruments(1).present());
  EXPECT_FALSE(listed.instruments(1).absent_reason().empty());
}

TEST_F(PtyInstrumentTest, AnInstrumentIsFoundByItsProbeReplyAmongTheListedPorts) {
  std::unique_ptr<PtyDevice> meter = StartWithAMeterAndTheSupplyListed(R"({"instruments": [
      {"name": "psu-2", "profile": "SIM-PSU", "match": {"idn_serial": "PSU0042"}},
      {"name": "psu-7", "profile": "SIM-PSU", "match": {"idn_serial": "PSU0007"}}]})");
  ASSERT_NE(meter, nullptr);
  EXPECT_FALSE(Instruments().instruments(0).present()) << "listing probes nothing";
  v1::OpenPortResponse opened;
  grpc::Status open = OpenInstrument("psu-2", &opened);
  ASSERT_TRUE(open.ok()) << open.error_message();
  EXPECT_EQ(opened.device_path(), supply_->path());
  EXPECT_EQ(meter->Received(), "*IDN?\n") << "the other port got the probe only";
  EXPECT_EQ(Instruments().instruments(0).port(), supply_->path());
  grpc::Status absent = OpenInstrument("psu-7");
  EXPECT_EQ(absent.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_TRUE(absl::StrContains(absent.error_message(), "LABGATE,SIM-PTY,0001,1.0"))
      << "the answers are named: " << absent.error_message();
}

// A candidate's device left holding half a line by a closed port reads the probe after a
// terminator, as an open's probe, and the line is then known to be ended.
TEST_F(PtyInstrumentTest, AProbeOfACandidateEndsTheHalfLineItsDeviceWasLeftWith) {
  std::unique_ptr<PtyDevice> meter = StartWithAMeterAndTheSupplyListed(R"({"instruments": [
      {"name": "psu-7", "profile": "SIM-PSU", "match": {"idn_serial": "PSU0007"}}]})");
  ASSERT_NE(meter, nullptr);
  ASSERT_TRUE(alice_->Open(meter->path(), 115200, "\n").ok());
  const std::string probed_at_open = meter->Received();
  ASSERT_TRUE(alice_->Write(meter->path(), absl::BytesToHexString("VO"), v1::ENCODING_HEX).ok());
  ASSERT_TRUE(alice_->Close(meter->path()).ok());
  grpc::Status absent = OpenInstrument("psu-7");
  EXPECT_EQ(absent.error_code(), grpc::StatusCode::NOT_FOUND) << absent.error_message();
  EXPECT_EQ(meter->Received(), probed_at_open + "VO\n*IDN?\n");
}

// An instrument found by its probe reply and never probed yet may be on any candidate port:
// opening one by its path probes it first, so its limits bind the port if it is the instrument.
TEST_F(PtyInstrumentTest, APathOpenedBeforeAnyProbeIsProbedAndBoundToTheInstrumentItIs) {
  std::unique_ptr<PtyDevice> meter = StartWithAMeterAndTheSupplyListed(R"({"instruments": [
      {"name": "psu-2", "profile": "SIM-PSU", "match": {"idn_serial": "PSU0042"}}]})");
  ASSERT_NE(meter, nullptr);
  v1::OpenPortRequest by_path;
  by_path.set_port_name(supply_->path());
  by_path.set_baud_rate(115200);
  v1::OpenPortResponse opened;
  grpc::Status open = alice_->Open(by_path, &opened);
  ASSERT_TRUE(open.ok()) << open.error_message();
  grpc::Status refused = alice_->Write(supply_->path(), "VOLT 12");
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(refused.error_message(), "12 V exceeds max-voltage (5 V) on psu-2 channel 1");
  EXPECT_EQ(Instruments().instruments(0).port(), supply_->path()) << "found where it was probed";

  // Once the instrument is found, another candidate opens as a plain port, unprobed.
  v1::OpenPortRequest other;
  other.set_port_name(meter->path());
  other.set_baud_rate(115200);
  ASSERT_TRUE(alice_->Open(other).ok());
  EXPECT_TRUE(alice_->Write(meter->path(), "VOLT 12").ok()) << "not the supply: no limits";
  EXPECT_EQ(supply_->Applied(), std::vector<std::string>{}) << "nothing refused reached it";
}

// A candidate port that cannot even be opened to probe might still be the supply: refused, not
// opened without its limits.
TEST_F(PtyInstrumentTest, ACandidatePathThatCannotBeProbedIsRefusedAsUndecidable) {
  PortDetails gone;
  gone.port_name = dir_ + "/no-such-tty";
  Start(R"({"instruments": [
      {"name": "psu-2", "profile": "SIM-PSU", "match": {"idn_serial": "PSU0042"}}]})",
        {gone});
  grpc::Status refused = alice_->Open(gone.port_name, 115200);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::UNAVAILABLE) << refused.error_message();
  EXPECT_EQ(refused.error_message(), absl::StrCat("cannot tell whether ", gone.port_name,
                                                  " is psu-2: it could not be opened to probe"));
}

TEST_F(PtyInstrumentTest, ADeviceBackUnderANewNameIsReopenedWithItsOwnerSettingsAndCapture) {
  const std::string link = dir_ + "/by-id-psu";
  std::filesystem::create_symlink(supply_->path(), link);
  Start(absl::StrCat(R"({"instruments": [{"name": "psu-2", "profile": "SIM-PSU",
      "match": {"by_path": ")",
                     link, R"("}}]})"));
  ASSERT_TRUE(OpenInstrument("psu-2").ok());
  ASSERT_TRUE(alice_->Write("psu-2", "VOLT 3").ok()) << "no value known yet: no step to judge";
  supply_->Send("unread before the replug\n");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (Status("psu-2").capture_buffered_bytes() < 25 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  supply_->Disconnect();
  ASSERT_TRUE(AwaitState("psu-2", v1::PORT_STATE_ERROR));

  // Another supply appears where the link points: not this one, so it is not taken.
  std::unique_ptr<PtyDevice> stranger = Device(InstrumentMode::kPowerSupply, "PSU0099");
  ASSERT_NE(stranger, nullptr);
  std::filesystem::remove(link);
  std::filesystem::create_symlink(stranger->path(), link);
  std::this_thread::sleep_for(milliseconds(400));
  EXPECT_EQ(Status("psu-2").status(), v1::PORT_STATE_ERROR);

  // The right one, under yet another name.
  std::unique_ptr<PtyDevice> back = Device(InstrumentMode::kPowerSupply, "PSU0042");
  ASSERT_NE(back, nullptr);
  std::filesystem::remove(link);
  std::filesystem::create_symlink(back->path(), link);
  ASSERT_TRUE(AwaitState("psu-2", v1::PORT_STATE_OPEN));
  const v1::GetStatusResponse status = Status("psu-2");
  EXPECT_EQ(status.device_path(), back->path());
  EXPECT_EQ(status.owner(), "alice");
  EXPECT_EQ(status.settings().terminator(), "\n");
  v1::ReadResponse read;
  ASSERT_TRUE(alice_->Read("psu-2", 1000, &read).ok());
  EXPECT_EQ(read.data(), "unread before the replug") << "the capture was kept";
  // It may have been power-cycled: the limits take it as reset, at its declared 0 V, and no
  // longer step from the 3 V set before.
  grpc::Status jump = alice_->Write("psu-2", "VOLT 3");
  EXPECT_EQ(jump.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(jump.error_message(),
            "a step of 3 V (from 0 V to 3 V) exceeds step-voltage (1 V) on psu-2 channel 1");
  ASSERT_TRUE(alice_->Write("psu-2", "VOLT 1").ok()) << "one step from 0 V, though two from 3 V";
  v1::QueryResponse reply;
  ASSERT_TRUE(alice_->Query("psu-2", "VOLT?", 2000, &reply).ok());
  EXPECT_EQ(reply.data(), "1");
  EXPECT_EQ(back->Supply(1).volts, 1);
  EXPECT_EQ(stranger->Applied(), std::vector<std::string>{}) << "the stranger got the probe only";
}

// A supply with no probe comes back under a new name still holding half a line ("VO"): the line
// moves with it, so after a close and an open at the new path "LT 35" is judged as VOLT 35.
TEST_F(PtyInstrumentTest, AHalfLineMovesWithTheDeviceToItsNewPath) {
  std::string unprobed = kSupplyProfile;
  unprobed = absl::StrReplaceAll(
      unprobed,
      {{R"("match": {"probe": {"command": "*IDN?", "reply": "^LABGATE,SIM-PSU,(?P<serial>[^,]+),"}},)",
        ""},
       {R"("model": "SIM-PSU")", R"("model": "SIM-PSU-QUIET")"}});
  ASSERT_EQ(unprobed.find("probe"), std::string::npos);
  WriteFile(dir_ + "/profiles/sim-psu-quiet.json", unprobed);
  const std::string link = dir_ + "/by-id-psu";
  std::filesystem::create_symlink(supply_->path(), link);
  Start(absl::StrCat(R"({"instruments": [{"name": "psu-2", "profile": "SIM-PSU-QUIET",
      "match": {"by_path": ")",
                     link, R"("}}]})"));
  ASSERT_TRUE(OpenInstrument("psu-2").ok());
  auto hex = [](const std::string& text) { return absl::BytesToHexString(text); };
  ASSERT_TRUE(alice_->Write("psu-2", hex("VO"), v1::ENCODING_HEX).ok());
  for (int i = 0; i < 500 && supply_->Received() != "VO"; ++i) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  ASSERT_EQ(supply_->Received(), "VO");
  supply_->Disconnect();
  ASSERT_TRUE(AwaitState("psu-2", v1::PORT_STATE_ERROR));

  std::unique_ptr<PtyDevice> back = Device(InstrumentMode::kPowerSupply, "PSU0042");
  ASSERT_NE(back, nullptr);
  std::filesystem::remove(link);
  std::filesystem::create_symlink(back->path(), link);
  ASSERT_TRUE(AwaitState("psu-2", v1::PORT_STATE_OPEN));
  ASSERT_TRUE(alice_->Close("psu-2").ok());
  ASSERT_TRUE(OpenInstrument("psu-2").ok());
  grpc::Status refused = alice_->Write("psu-2", hex("LT 35\n"), v1::ENCODING_HEX);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_TRUE(absl::StrContains(refused.error_message(), "completes the line 'VO'"))
      << refused.error_message();
  EXPECT_EQ(back->Received(), "");
}

TEST_F(PtyInstrumentTest, BadOpenRequestsForAnInstrumentAreRefusedByName) {
  WriteFile(dir_ + "/profiles/bare.json", R"({"model": "BARE"})");
  Start(absl::StrCat(R"({"instruments": [
      {"name": "psu-2", "profile": "SIM-PSU", "match": {"port_name": ")",
                     supply_->path(), R"("}},
      {"name": "bare", "profile": "BARE", "match": {"port_name": "loop://bare"}}]})"));
  grpc::Status unknown = OpenInstrument("psu-9");
  EXPECT_EQ(unknown.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(unknown.error_message(), "no instrument named 'psu-9'; instruments: psu-2, bare");
  v1::OpenPortRequest both;
  both.set_instrument("psu-2");
  both.set_port_name(supply_->path());
  grpc::Status refused = alice_->Open(both);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(absl::StrContains(refused.error_message(), "give port_name or instrument, not both"))
      << refused.error_message();
  grpc::Status no_baud = OpenInstrument("bare");
  EXPECT_EQ(no_baud.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(absl::StrContains(no_baud.error_message(),
                                "baud_rate is required: the profile of bare (BARE"))
      << no_baud.error_message();
  v1::OpenPortRequest with_baud;
  with_baud.set_instrument("bare");
  with_baud.set_baud_rate(9600);
  EXPECT_TRUE(alice_->Open(with_baud).ok()) << "given, it opens";
  EXPECT_EQ(supply_->Received(), "") << "nothing reached the supply";
}

TEST_F(PtyInstrumentTest, TheSafetyPolicyBindsInstrumentsAsItBindsTheirPorts) {
  Start(absl::StrCat(R"({"instruments": [
      {"name": "psu-2", "profile": "SIM-PSU", "match": {"port_name": ")",
                     supply_->path(), R"("}},
      {"name": "loop-psu", "profile": "SIM-PSU", "match": {"port_name": "loop://psu"}}]})"),
        {}, R"({"ports": [{"match": "loop://*"}]})");
  const v1::ListInstrumentsResponse listed = Instruments();
  ASSERT_EQ(listed.instruments_size(), 1) << "the supply's path is not the policy's to list";
  EXPECT_EQ(listed.instruments(0).name(), "loop-psu");
  grpc::Status refused = OpenInstrument("psu-2");
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED) << refused.error_message();
  EXPECT_EQ(supply_->Received(), "") << "refused before the probe";
}

TEST_F(PtyInstrumentTest, BadFilesAreRefusedAtStartAndOnReloadTheOldOnesStayInForce) {
  StartWithSupplyAtItsPath();
  const std::string good = absl::StrCat(R"({"instruments": [{"name": "psu-2",
      "profile": "SIM-PSU", "match": {"port_name": ")",
                                        supply_->path(), R"("}}]})");
  struct Case {
    std::string instruments;
    std::string error;
  };
  const std::vector<Case> cases = {
      {R"({"instruments": [{"name": "psu-2", "profile": "SIM-PSU", "match": {"port_name": "/dev/x"},
          "colour": "red"}]})",
       "colour"},
      {R"({"instruments": [{"name": "a", "profile": "SIM-PSU", "match": {"usb_serial": "X1"}},
                           {"name": "b", "profile": "SIM-PSU", "match": {"usb_serial": "X1"}}]})",
       "a and b both match usb_serial 'X1'"},
      {R"({"instruments": [{"name": "a", "profile": "NOPE", "match": {"usb_serial": "X1"}}]})",
       "NOPE"},
  };
  for (const Case& bad : cases) {
    WriteFile(dir_ + "/instruments.json", bad.instruments);
    absl::Status reloaded = service_->ReloadPolicy();
    EXPECT_FALSE(reloaded.ok()) << bad.error;
    EXPECT_TRUE(absl::StrContains(reloaded.message(), dir_ + "/instruments.json"))
        << reloaded.message();
    EXPECT_TRUE(absl::StrContains(reloaded.message(), bad.error)) << reloaded.message();
    ASSERT_EQ(Instruments().instruments_size(), 1) << "the old instruments stay";
    EXPECT_EQ(Instruments().instruments(0).name(), "psu-2");

    SerialServiceOptions options;
    options.profiles_dir = dir_ + "/profiles";
    options.instruments_file = dir_ + "/instruments.json";
    absl::StatusOr<std::unique_ptr<SerialGrpcService>> fresh = CreateSerialService(options);
    EXPECT_FALSE(fresh.ok()) << "refused at start too: " << bad.error;
  }
  // A profile with a bad regex.
  WriteFile(dir_ + "/instruments.json", good);
  WriteFile(dir_ + "/profiles/broken.json",
            R"({"model": "BROKEN", "match": {"probe": {"reply": "(unclosed"}}})");
  absl::Status reloaded = service_->ReloadPolicy();
  EXPECT_TRUE(absl::StrContains(reloaded.message(), "broken.json")) << reloaded.message();
  ASSERT_TRUE(OpenInstrument("psu-2").ok()) << "the limits in force still apply";
  EXPECT_EQ(alice_->Write("psu-2", "VOLT 12").error_code(), grpc::StatusCode::PERMISSION_DENIED);
  // Fixed files load, and the new limit applies to the open port at once.
  std::filesystem::remove(dir_ + "/profiles/broken.json");
  WriteFile(dir_ + "/profiles/sim-psu.json",
            absl::StrReplaceAll(kSupplyProfile, {{R"("max": 5})", R"("max": 3})"}}));
  ASSERT_TRUE(service_->ReloadPolicy().ok());
  EXPECT_EQ(alice_->Write("psu-2", "VOLT 4").error_message(),
            "4 V exceeds max-voltage (3 V) on psu-2 channel 1");
}

}  // namespace
}  // namespace labgate::serial
