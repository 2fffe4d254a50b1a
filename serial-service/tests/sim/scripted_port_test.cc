// sim:// ports: a SimulatedInstrument behind ScriptedPort, alone (its descriptor
// turns readable when something is due) and under the gRPC service (query, capture of what it
// says late, and a DTR pulse that reboots it), with no hardware.
#include "serial-service/backends/scripted_port.h"

#include <gtest/gtest.h>
#include <poll.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "common/service_host.h"
#include "serial-service/serial_service.h"
#include "serial-service/sim/simulated_instrument.h"
#include "serial-service/tests/serial_test_client.h"

namespace labgate::serial {
namespace {

SimulationSpec Supply() {
  SimulationSpec spec;
  spec.serial = "SIM0007";
  spec.banner = "SIM-PSU ready\n";
  SimulationSpec::Response idn;
  idn.match = CompilePattern("\\*IDN\\?", PatternInput::kUtf8, "test").value();
  idn.reply = "LABGATE,SIM-PSU,{serial},1.0";
  spec.responses.push_back(idn);
  SimulationSpec::Response slow;
  slow.match = CompilePattern("SLOW\\?", PatternInput::kUtf8, "test").value();
  slow.reply = "late";
  slow.delay_ms = 80;
  spec.responses.push_back(slow);
  SimulationSpec::Quantity voltage;
  voltage.name = "voltage";
  voltage.unit = "V";
  voltage.range.max = 30;
  voltage.headers.push_back(ScpiHeaderPattern::Parse("[SOURce#:]VOLTage[:LEVel]").value());
  spec.quantities.push_back(voltage);
  spec.reboot_on_dtr_pulse = true;
  return spec;
}

std::string ReadAll(ScriptedPort& port, int64_t timeout_ms) {
  char buffer[256];
  absl::StatusOr<size_t> got = port.Read(buffer, sizeof(buffer), timeout_ms);
  EXPECT_TRUE(got.ok()) << got.status();
  return std::string(buffer, got.value_or(0));
}

bool Readable(int fd, int timeout_ms) {
  pollfd watched{fd, POLLIN, 0};
  return poll(&watched, 1, timeout_ms) == 1;
}

TEST(SimPortTest, ItsDescriptorTurnsReadableWhenWhatItSaysIsDue) {
  ScriptedPort port(std::make_shared<SimulatedInstrument>(Supply()), "sim");
  EXPECT_FALSE(port.Write("*IDN?\n", 0).ok()) << "not open yet";
  ASSERT_TRUE(port.Open().ok());
  EXPECT_TRUE(Readable(port.ReadableFd(), 100)) << "the banner";
  EXPECT_EQ(ReadAll(port, 0), "SIM-PSU ready\n");
  EXPECT_FALSE(Readable(port.ReadableFd(), 0));
  ASSERT_TRUE(port.Write("SLOW?\n", 0).ok());
  EXPECT_FALSE(Readable(port.ReadableFd(), 20)) << "not due yet";
  EXPECT_TRUE(Readable(port.ReadableFd(), 500));
  EXPECT_EQ(ReadAll(port, 0), "late\n");
  EXPECT_EQ(ReadAll(port, 30), "") << "a read with nothing due times out";
  port.Close();
  EXPECT_FALSE(port.Read(nullptr, 0, 0).ok());
}

class SimServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SerialServiceOptions options;
    options.port_factory = [](const std::string& name) -> std::unique_ptr<SerialPort> {
      if (IsSimName(name))
        return std::make_unique<ScriptedPort>(std::make_shared<SimulatedInstrument>(Supply()),
                                              "sim");
      return DefaultPortFactory(name);
    };
    auto service = CreateSerialService(options);
    ASSERT_TRUE(service.ok()) << service.status();
    service_ = std::move(*service);
    auto host = ServiceHost::Start("", {service_.get()});
    ASSERT_TRUE(host.ok());
    host_ = std::move(*host);
    client_ = std::make_unique<testing::SerialClient>(host_->InProcessChannel(), "alice");
  }
  void TearDown() override {
    service_->Shutdown();
    host_->Shutdown(std::chrono::seconds(2));
  }
  std::unique_ptr<SerialGrpcService> service_;
  std::unique_ptr<ServiceHost> host_;
  std::unique_ptr<testing::SerialClient> client_;
};

TEST_F(SimServiceTest, ASimulatedSupplyAnswersItsQueriesAndRebootsOnADtrPulse) {
  ASSERT_TRUE(client_->Open("sim://psu", 9600, "\n").ok());
  v1::WaitForRequest banner;
  banner.set_port_name("sim://psu");
  banner.add_patterns("ready\\n");  // through its line end, so nothing of it is left unread
  banner.set_timeout_ms(2000);
  v1::WaitForResponse waited;
  ASSERT_TRUE(client_->stub()->WaitFor(client_->Context().get(), banner, &waited).ok());
  EXPECT_TRUE(waited.matched()) << "captured as it was said";
  v1::QueryResponse reply;
  ASSERT_TRUE(client_->Query("sim://psu", "*IDN?", 1000, &reply).ok());
  EXPECT_EQ(reply.data(), "LABGATE,SIM-PSU,SIM0007,1.0");
  ASSERT_TRUE(client_->Write("sim://psu", "VOLT 4.5").ok());
  ASSERT_TRUE(client_->Query("sim://psu", "VOLT?", 1000, &reply).ok());
  EXPECT_EQ(reply.data(), "4.5");
  ASSERT_TRUE(client_->Query("sim://psu", "SLOW?", 1000, &reply).ok());
  EXPECT_EQ(reply.data(), "late");

  v1::PulseSignalRequest pulse;
  pulse.set_port_name("sim://psu");
  pulse.set_signal(v1::CONTROL_LINE_DTR);
  pulse.set_level(false);
  pulse.set_ms(20);
  v1::SignalsResponse lines;
  ASSERT_TRUE(client_->stub()->PulseSignal(client_->Context().get(), pulse, &lines).ok());
  ASSERT_TRUE(client_->stub()->WaitFor(client_->Context().get(), banner, &waited).ok());
  EXPECT_TRUE(waited.matched()) << "the banner again after the reset";
  ASSERT_TRUE(client_->Query("sim://psu", "VOLT?", 1000, &reply).ok());
  EXPECT_EQ(reply.data(), "0") << "rebooted to its initial state";
}

// sim://MODEL from the profiles: listed, opened by a named instrument on it (its probe answered
// by the simulation), its limits refusing before anything reaches the simulation, and its error
// queue for what the simulation itself refuses.
TEST(SimProfileTest, AProfilesSimulationIsAPortANamedInstrumentAndARehearsalOfItsLimits) {
  char pattern[] = "/tmp/labgate-sim-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string dir = pattern;
  std::filesystem::create_directory(dir + "/profiles");
  std::ofstream(dir + "/profiles/psu.json") << R"json({
    "model": "SIM-PSU",
    "match": {"probe": {"reply": "^LABGATE,SIM-PSU,(?P<serial>[^,]+),"}},
    "settings": {"baud_rate": 9600, "terminator": "\n", "timeout_ms": 1000},
    "quantities": {"voltage": {"unit": "V", "min": 0, "max": 30,
                               "headers": ["[SOURce#:]VOLTage[:LEVel]"]}},
    "limits": [{"name": "max-voltage", "quantity": "voltage", "max": 5}],
    "simulation": {
      "serial": "SIM0042",
      "responses": [{"match": "\\*IDN\\?", "reply": "LABGATE,SIM-PSU,{serial},1.0"}],
      "state": {"voltage": {"initial": 0}}
    }})json";
  std::ofstream(dir + "/instruments.json")
      << R"({"instruments": [{"name": "psu-sim", "profile": "SIM-PSU",
                              "match": {"port_name": "sim://SIM-PSU"}}]})";
  SerialServiceOptions options;
  options.profiles_dir = dir + "/profiles";
  options.instruments_file = dir + "/instruments.json";
  auto service = CreateSerialService(options);
  ASSERT_TRUE(service.ok()) << service.status();
  auto host = ServiceHost::Start("", {service->get()});
  ASSERT_TRUE(host.ok());
  testing::SerialClient client((*host)->InProcessChannel(), "alice");

  v1::ListPortsResponse ports;
  ASSERT_TRUE(
      client.stub()->ListPorts(client.Context().get(), v1::ListPortsRequest(), &ports).ok());
  bool listed = false;
  for (const v1::PortInfo& port : ports.ports()) listed |= port.port_name() == "sim://SIM-PSU";
  EXPECT_TRUE(listed) << ports.DebugString();
  grpc::Status unknown = client.Open("sim://NOPE", 9600);
  EXPECT_EQ(unknown.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(unknown.error_message(), "no profile simulates NOPE; simulated: sim://SIM-PSU");

  v1::OpenPortRequest open;
  open.set_instrument("psu-sim");
  v1::OpenPortResponse opened;
  grpc::Status status = client.Open(open, &opened);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(opened.identity(), "LABGATE,SIM-PSU,SIM0042,1.0");
  grpc::Status refused = client.Write("psu-sim", "VOLT 12");
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(refused.error_message(), "12 V exceeds max-voltage (5 V) on psu-sim channel 1");
  v1::QueryResponse reply;
  ASSERT_TRUE(client.Query("psu-sim", "VOLT?", 1000, &reply).ok());
  EXPECT_EQ(reply.data(), "0") << "the refused value never reached the simulation";
  ASSERT_TRUE(client.Write("psu-sim", "VOLT 4.5").ok());
  ASSERT_TRUE(client.Query("psu-sim", "VOLT?", 1000, &reply).ok());
  EXPECT_EQ(reply.data(), "4.5");
  ASSERT_TRUE(client.Write("psu-sim", "FOO 1").ok());
  ASSERT_TRUE(client.Query("psu-sim", "SYST:ERR?", 1000, &reply).ok());
  EXPECT_EQ(reply.data(), "-113,\"Undefined header\"");

  (*service)->Shutdown();
  (*host)->Shutdown(std::chrono::seconds(2));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace labgate::serial
