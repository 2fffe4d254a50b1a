// wait_for and send_expect through the real libserialport against the simulated instrument
// on a pty, via the gRPC service on an in-process channel: patterns split across reads,
// several patterns, where the search starts, time-outs, cancellation, binary data, hostile
// patterns, and scripts.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "common/service_host.h"
#include "serial-service/serial_service.h"
#include "serial-service/tests/serial_test_client.h"
#include "tests/serial_harness/pty_device.h"

namespace labgate::serial {
namespace {

using serial_harness::InstrumentMode;
using serial_harness::kInstrumentId;
using serial_harness::PtyDevice;
using std::chrono::milliseconds;
using testing::SerialClient;

v1::WaitForRequest Wait(std::vector<std::string> patterns, int64_t timeout_ms) {
  v1::WaitForRequest request;
  for (std::string& pattern : patterns) request.add_patterns(std::move(pattern));
  request.set_timeout_ms(timeout_ms);
  return request;
}

class PtyWaitForTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(serial_harness::ShimLoaded()) << "tiocm_shim.so is not preloaded";
    auto service = CreateSerialService(SerialServiceOptions{});
    ASSERT_TRUE(service.ok()) << service.status();
    service_ = std::move(*service);
    auto host = ServiceHost::Start("", {service_.get()});
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = std::move(*host);
    alice_ = std::make_unique<SerialClient>(host_->InProcessChannel(), "alice");
    auto device = PtyDevice::Create(InstrumentMode::kScpi);
    ASSERT_TRUE(device.ok()) << "pty harness: " << device.status();
    device_ = std::move(*device);
    ASSERT_TRUE(alice_->Open(device_->path(), 115200, "\n").ok());
  }
  void TearDown() override {
    if (service_) service_->Shutdown();
    if (host_) host_->Shutdown(std::chrono::seconds(2));
  }

  grpc::Status WaitFor(const v1::WaitForRequest& request, v1::WaitForResponse* response) {
    return alice_->stub()->WaitFor(alice_->Context().get(), request, response);
  }
  // What the port holds unread (a short binary read).
  std::string Unread() {
    v1::ReadResponse read;
    EXPECT_TRUE(alice_->Read("", 50, &read, v1::ENCODING_BASE64).ok());
    std::string raw;
    EXPECT_TRUE(absl::Base64Unescape(read.data(), &raw));
    return raw;
  }
  // Waits until the service has captured `bytes` more bytes than `before` (status shows it).
  void AwaitCaptured(int64_t bytes) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    v1::GetStatusResponse status;
    do {
      ASSERT_TRUE(alice_->Status("", &status).ok());
      if (status.capture_buffered_bytes() >= bytes) return;
      std::this_thread::sleep_for(milliseconds(5));
    } while (std::chrono::steady_clock::now() < deadline);
    FAIL() << "captured " << status.capture_buffered_bytes() << " of " << bytes << " bytes";
  }

  std::unique_ptr<SerialGrpcService> service_;
  std::unique_ptr<ServiceHost> host_;
  std::unique_ptr<SerialClient> alice_;
  std::unique_ptr<PtyDevice> device_;
};

TEST_F(PtyWaitForTest, APatternSplitAcrossReadsMatchesAndWhatFollowsStays) {
  std::thread device([&] {
    device_->Send("Linux 6.1 booting\nlog");
    std::this_thread::sleep_for(milliseconds(80));  // the port has read the first part by now
    device_->Send("in: extra");
  });
  v1::WaitForResponse got;
  grpc::Status status = WaitFor(Wait({"login: "}, 5000), &got);
  device.join();
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_TRUE(got.matched());
  EXPECT_FALSE(got.timed_out());
  EXPECT_EQ(got.pattern_index(), 0);
  EXPECT_EQ(got.match(), "login: ");
  EXPECT_EQ(got.before(), "Linux 6.1 booting\n");
  EXPECT_EQ(got.bytes_consumed(), static_cast<int64_t>(strlen("Linux 6.1 booting\nlogin: ")));
  EXPECT_GE(got.latency_ms(), 60);
  EXPECT_EQ(got.port_name(), device_->path());
  EXPECT_EQ(Unread(), "extra") << "bytes after the match stay for the next read";
}

TEST_F(PtyWaitForTest, TheEarliestMatchWinsWhicheverPatternItIs) {
  device_->Send("ERROR 42\nOK\n");
  AwaitCaptured(12);
  v1::WaitForResponse got;
  ASSERT_TRUE(WaitFor(Wait({"OK", "ERROR (\\d+)", "ERR"}, 1000), &got).ok());
  EXPECT_EQ(got.pattern_index(), 1) << "ERROR 42 comes first; on the tie with ERR, the earlier";
  EXPECT_EQ(got.match(), "ERROR 42");
  ASSERT_EQ(got.groups_size(), 1);
  EXPECT_EQ(got.groups(0), "42");
  EXPECT_EQ(got.before(), "");
  // The rest is still there for the next wait.
  v1::WaitForResponse next;
  ASSERT_TRUE(WaitFor(Wait({"OK"}, 1000), &next).ok());
  EXPECT_TRUE(next.matched());
  EXPECT_EQ(next.before(), "\n");
  EXPECT_EQ(Unread(), "\n");
}

TEST_F(PtyWaitForTest, FromNewLooksOnlyAtWhatArrivesAfterTheCallStarts) {
  device_->Send("OK (stale)\n");
  AwaitCaptured(11);
  v1::WaitForRequest request = Wait({"OK"}, 5000);
  request.set_from(v1::WAIT_FROM_NEW);
  std::thread device([&] {
    std::this_thread::sleep_for(milliseconds(100));
    device_->Send("fresh OK\n");
  });
  v1::WaitForResponse got;
  ASSERT_TRUE(WaitFor(request, &got).ok());
  device.join();
  EXPECT_TRUE(got.matched());
  EXPECT_EQ(got.before(), "fresh ") << "the stale OK was not searched";
  EXPECT_EQ(got.bytes_consumed(), 11 + 8) << "but it is consumed, being before the match";
  EXPECT_EQ(Unread(), "\n");

  // From "buffered" (the default) the bytes already there count.
  device_->Send("OK again\n");
  AwaitCaptured(9);
  v1::WaitForResponse buffered;
  ASSERT_TRUE(WaitFor(Wait({"again"}, 1000), &buffered).ok());
  EXPECT_EQ(buffered.before(), "OK ");
  EXPECT_LT(buffered.latency_ms(), 1000);
}

TEST_F(PtyWaitForTest, ATimeOutReturnsWhatArrivedAndConsumesNothing) {
  device_->Send("partial output");
  v1::WaitForResponse got;
  ASSERT_TRUE(WaitFor(Wait({"DONE"}, 150), &got).ok());
  EXPECT_FALSE(got.matched());
  EXPECT_TRUE(got.timed_out());
  EXPECT_EQ(got.pattern_index(), -1);
  EXPECT_EQ(got.before(), "partial output");
  EXPECT_EQ(got.bytes_consumed(), 0);
  EXPECT_GE(got.latency_ms(), 150);
  // A retry sees the same bytes.
  v1::WaitForResponse again;
  ASSERT_TRUE(WaitFor(Wait({"output"}, 1000), &again).ok());
  EXPECT_TRUE(again.matched());
  EXPECT_EQ(again.before(), "partial ");
}

TEST_F(PtyWaitForTest, ACancelledWaitFreesThePortAtOnce) {
  grpc::ClientContext context;
  context.AddMetadata("labgate-owner", "alice");
  v1::WaitForResponse got;
  std::promise<grpc::Status> finished;
  const v1::WaitForRequest request = Wait({"never"}, 60000);  // outlives the call
  alice_->stub()->async()->WaitFor(&context, &request, &got,
                                   [&](const grpc::Status& status) { finished.set_value(status); });
  std::this_thread::sleep_for(milliseconds(150));
  const auto cancelled_at = std::chrono::steady_clock::now();
  context.TryCancel();
  auto done = finished.get_future();
  ASSERT_EQ(done.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_EQ(done.get().error_code(), grpc::StatusCode::CANCELLED);
  // The port's worker gave the wait up: a query is answered at once, not after 60 s.
  v1::QueryResponse reply;
  ASSERT_TRUE(alice_->Query("", "*IDN?", 5000, &reply).ok());
  EXPECT_EQ(reply.data(), kInstrumentId);
  EXPECT_LT(std::chrono::steady_clock::now() - cancelled_at, std::chrono::seconds(5));
}

TEST_F(PtyWaitForTest, BinaryDataMatchesByteForByteInHexMode) {
  device_->Send(std::string("\x02\x10\xff\x03\x04", 5));
  v1::WaitForRequest request = Wait({"\\x10\\xff"}, 1000);
  request.set_encoding(v1::ENCODING_HEX);
  v1::WaitForResponse got;
  ASSERT_TRUE(WaitFor(request, &got).ok());
  EXPECT_TRUE(got.matched());
  EXPECT_EQ(got.encoding(), v1::ENCODING_HEX);
  EXPECT_EQ(got.match(), "10ff");
  EXPECT_EQ(got.before(), "02");
  EXPECT_EQ(Unread(), std::string("\x03\x04", 2));
}

TEST_F(PtyWaitForTest, LiteralPatternsMatchTheirTextOnly) {
  device_->Send("axb a.b\n");
  v1::WaitForRequest request = Wait({"a.b"}, 1000);
  request.set_regex(false);
  v1::WaitForResponse got;
  ASSERT_TRUE(WaitFor(request, &got).ok());
  EXPECT_EQ(got.before(), "axb ");
}

TEST_F(PtyWaitForTest, BadAndHostilePatternsGetClearErrorsAndThePortKeepsServing) {
  v1::WaitForResponse got;
  grpc::Status invalid = WaitFor(Wait({"OK", "(unclosed"}, 100), &got);
  EXPECT_EQ(invalid.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(absl::StrContains(invalid.error_message(), "patterns[1]")) << invalid.error_message();
  EXPECT_TRUE(absl::StrContains(invalid.error_message(), "missing )")) << invalid.error_message();

  grpc::Status none = WaitFor(Wait({}, 100), &got);
  EXPECT_EQ(none.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  std::vector<std::string> seventeen(17, "x");
  grpc::Status too_many = WaitFor(Wait(seventeen, 100), &got);
  EXPECT_EQ(too_many.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(absl::StrContains(too_many.error_message(), "1 to 16")) << too_many.error_message();
  grpc::Status huge = WaitFor(Wait({std::string(1 << 20, 'a')}, 100), &got);
  EXPECT_EQ(huge.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(absl::StrContains(huge.error_message(), "4096")) << huge.error_message();

  // The backtracking classics run in linear time: no match, and the wait ends on time.
  device_->Send(std::string(5000, 'a') + "!");
  AwaitCaptured(5001);
  const auto started = std::chrono::steady_clock::now();
  ASSERT_TRUE(WaitFor(Wait({"(a+)+$", "(a|aa)+b", "(a*)*b"}, 200), &got).ok());
  EXPECT_TRUE(got.timed_out());
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));

  v1::QueryResponse reply;
  v1::ReadResponse drained;
  ASSERT_TRUE(alice_->Read("", 50, &drained, v1::ENCODING_HEX, 65536).ok());
  ASSERT_TRUE(alice_->Query("", "*IDN?", 2000, &reply).ok());
  EXPECT_EQ(reply.data(), kInstrumentId);
}

v1::ScriptStep Send(const std::string& data) {
  v1::ScriptStep step;
  step.set_send(data);
  return step;
}
v1::ScriptStep Expect(const std::string& pattern, int64_t timeout_ms) {
  v1::ScriptStep step;
  step.add_expect(pattern);
  step.set_timeout_ms(timeout_ms);
  return step;
}

// The harness's board (reset on DTR, a login shell): reset it, wait for its prompt and log
// in, in three calls, with nothing read in between.
TEST_F(PtyWaitForTest, ABoardIsResetWaitedForAndLoggedIntoInThreeCalls) {
  device_->set_mode(InstrumentMode::kBoard);
  v1::PulseSignalRequest pulse;
  pulse.set_signal(v1::CONTROL_LINE_DTR);
  pulse.set_level(false);
  pulse.set_ms(50);
  v1::SignalsResponse lines;
  ASSERT_TRUE(alice_->stub()->PulseSignal(alice_->Context().get(), pulse, &lines).ok());

  v1::WaitForResponse prompt;
  ASSERT_TRUE(WaitFor(Wait({"login: $", "Kernel panic"}, 5000), &prompt).ok());
  ASSERT_TRUE(prompt.matched()) << "before: " << prompt.before();
  EXPECT_EQ(prompt.pattern_index(), 0);
  EXPECT_EQ(prompt.before(), absl::StrCat(serial_harness::kBoardBanner, "labgate-sim "));
  EXPECT_EQ(device_->boots(), 1);

  v1::SendExpectRequest request;
  *request.add_steps() = Send(serial_harness::kBoardUser);
  *request.add_steps() = Expect("Password: ", 3000);
  *request.add_steps() = Send(serial_harness::kBoardPassword);
  *request.add_steps() = Expect("(\\w+)@([\\w-]+):~# ", 3000);
  request.add_steps()->set_delay_ms(5);
  v1::SendExpectResponse got;
  grpc::Status status = alice_->stub()->SendExpect(alice_->Context().get(), request, &got);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_TRUE(got.completed());
  EXPECT_EQ(got.failed_step(), -1);
  ASSERT_EQ(got.steps_size(), 5);
  EXPECT_EQ(got.steps(0).kind(), "send");
  EXPECT_EQ(got.steps(0).bytes_written(), 5) << "root and the terminator";
  EXPECT_EQ(got.steps(1).kind(), "expect");
  EXPECT_TRUE(got.steps(1).matched());
  EXPECT_EQ(got.steps(3).match(), serial_harness::kBoardShellPrompt);
  ASSERT_EQ(got.steps(3).groups_size(), 2);
  EXPECT_EQ(got.steps(3).groups(0), "root");
  EXPECT_EQ(got.steps(3).groups(1), "labgate-sim");
  EXPECT_EQ(got.steps(3).before(), "\r\nWelcome to labgate-sim\r\n");
  EXPECT_EQ(got.steps(4).kind(), "delay");
  EXPECT_EQ(device_->Received(), "root\nlabgate\n");

  v1::QueryResponse uname;
  ASSERT_TRUE(alice_->Query("", "uname", 2000, &uname).ok());
  EXPECT_EQ(uname.data(), "Linux labgate-sim\r") << "logged in";
}

// An instrument streaming a reading every 5 ms: wait_for finds the 20th as it streams, and the
// readings after it stay for the next call.
TEST_F(PtyWaitForTest, AWaitFindsItsReadingInAStreamAndLeavesTheRest) {
  v1::WriteResponse wrote;
  ASSERT_TRUE(alice_->Write("", "STREAM 5", v1::ENCODING_TEXT, &wrote).ok());
  v1::WaitForResponse twentieth;
  ASSERT_TRUE(WaitFor(Wait({"READING 20 ([0-9.]+) V\n"}, 5000), &twentieth).ok());
  ASSERT_TRUE(twentieth.matched());
  ASSERT_EQ(twentieth.groups_size(), 1);
  EXPECT_EQ(twentieth.groups(0), "5.0200");
  EXPECT_TRUE(absl::StartsWith(twentieth.before(), "READING 1 5.0010 V\nREADING 2 "))
      << "every reading before it: " << twentieth.before();
  v1::WaitForResponse next;
  ASSERT_TRUE(WaitFor(Wait({"READING (\\d+) "}, 5000), &next).ok());
  ASSERT_TRUE(next.matched());
  EXPECT_EQ(next.groups(0), "21") << "nothing after the match was consumed";
  ASSERT_TRUE(alice_->Write("", "STREAM 0", v1::ENCODING_TEXT, &wrote).ok());
}

// The harness's power supply over the real libserialport: settings change its state, queries
// read it back, and it names itself with its serial number.
TEST_F(PtyWaitForTest, ThePowerSupplySimulatorKeepsItsState) {
  device_->set_mode(InstrumentMode::kPowerSupply);
  device_->set_serial("PSU0042");
  v1::QueryResponse reply;
  ASSERT_TRUE(alice_->Query("", "*IDN?", 2000, &reply).ok());
  EXPECT_EQ(reply.data(), "LABGATE,SIM-PSU,PSU0042,1.0");
  v1::WriteResponse wrote;
  ASSERT_TRUE(
      alice_->Write("", "APPL CH1,4.9,0.5;SOUR2:VOLT:LEV 3300mV;OUTP ON", v1::ENCODING_TEXT, &wrote)
          .ok());
  ASSERT_TRUE(alice_->Query("", "SOUR2:VOLT?", 2000, &reply).ok());
  EXPECT_EQ(reply.data(), "3.3");
  EXPECT_EQ(device_->Supply(1).volts, 4.9);
  EXPECT_EQ(device_->Supply(1).amps, 0.5);
  EXPECT_TRUE(device_->output_on());
  EXPECT_EQ(device_->Applied(), (std::vector<std::string>{"APPL 1 4.9", "VOLT 2 3.3", "OUTP ON"}));
}

// A wrong password: the script's last expect times out; every step ran, and the answer says
// which one failed.
TEST_F(PtyWaitForTest, AWrongPasswordFailsTheStepThatExpectedThePrompt) {
  device_->set_mode(InstrumentMode::kBoard);
  v1::SendExpectRequest request;
  // A reset inside the script: DTR low for 20 ms, then the prompt.
  v1::ScriptStep reset;
  reset.set_signal(v1::CONTROL_LINE_DTR);
  reset.set_level(false);
  reset.set_ms(20);
  *request.add_steps() = reset;
  *request.add_steps() = Expect("login: ", 3000);
  *request.add_steps() = Send(serial_harness::kBoardUser);
  *request.add_steps() = Expect("Password: ", 3000);
  *request.add_steps() = Send("wrong");
  *request.add_steps() = Expect(":~# ", 300);
  v1::SendExpectResponse got;
  ASSERT_TRUE(alice_->stub()->SendExpect(alice_->Context().get(), request, &got).ok());
  EXPECT_TRUE(got.completed());
  EXPECT_EQ(got.failed_step(), 5);
  ASSERT_EQ(got.steps_size(), 6);
  EXPECT_TRUE(got.steps(1).matched()) << "the reset step rebooted the board";
  EXPECT_TRUE(got.steps(5).timed_out());
  EXPECT_EQ(got.steps(5).before(), "\r\nLogin incorrect\r\nlabgate-sim login: ");
  EXPECT_EQ(device_->boots(), 1);
}

TEST_F(PtyWaitForTest, AScriptStopsAtAnExpectThatTimesOutUnlessToldToGoOn) {
  v1::SendExpectRequest request;
  *request.add_steps() = Send("first");
  *request.add_steps() = Expect("NEVER", 100);
  *request.add_steps() = Send("second");
  v1::SendExpectResponse stopped;
  ASSERT_TRUE(alice_->stub()->SendExpect(alice_->Context().get(), request, &stopped).ok());
  EXPECT_FALSE(stopped.completed());
  EXPECT_EQ(stopped.failed_step(), 1);
  ASSERT_EQ(stopped.steps_size(), 2);
  EXPECT_TRUE(stopped.steps(1).timed_out());
  EXPECT_EQ(device_->Received(), "first\n") << "the step after the time-out did not run";

  request.set_stop_on_timeout(false);
  v1::SendExpectResponse went_on;
  ASSERT_TRUE(alice_->stub()->SendExpect(alice_->Context().get(), request, &went_on).ok());
  EXPECT_TRUE(went_on.completed());
  EXPECT_EQ(went_on.failed_step(), 1);
  EXPECT_EQ(went_on.steps_size(), 3);
  // The device thread takes the last send from the pty a moment later.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (device_->Received() != "first\nfirst\nsecond\n" &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(5));
  }
  EXPECT_EQ(device_->Received(), "first\nfirst\nsecond\n");
}

TEST_F(PtyWaitForTest, AMalformedScriptIsRefusedByStepBeforeAnythingRuns) {
  v1::SendExpectResponse got;
  v1::SendExpectRequest two_kinds;
  v1::ScriptStep both = Send("x");
  both.add_expect("y");
  *two_kinds.add_steps() = Send("never sent");
  *two_kinds.add_steps() = both;
  grpc::Status status = alice_->stub()->SendExpect(alice_->Context().get(), two_kinds, &got);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(absl::StrContains(status.error_message(), "steps[1] must be exactly one"))
      << status.error_message();

  v1::SendExpectRequest bad_pattern;
  *bad_pattern.add_steps() = Send("never sent");
  *bad_pattern.add_steps() = Expect("(open", 100);
  status = alice_->stub()->SendExpect(alice_->Context().get(), bad_pattern, &got);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(absl::StrContains(status.error_message(), "steps[1].expect[0]"))
      << status.error_message();

  v1::SendExpectRequest too_long;
  for (int i = 0; i < 33; ++i) *too_long.add_steps() = Send("x");
  status = alice_->stub()->SendExpect(alice_->Context().get(), too_long, &got);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(absl::StrContains(status.error_message(), "1 to 32 steps")) << status.error_message();

  // Out-of-range pauses and pulses, and a signal without its level, are refused by step.
  v1::SendExpectRequest long_pause;
  long_pause.add_steps()->set_delay_ms(10001);
  status = alice_->stub()->SendExpect(alice_->Context().get(), long_pause, &got);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(absl::StrContains(status.error_message(), "steps[0].delay_ms"))
      << status.error_message();
  v1::SendExpectRequest no_level;
  no_level.add_steps()->set_signal(v1::CONTROL_LINE_DTR);
  status = alice_->stub()->SendExpect(alice_->Context().get(), no_level, &got);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(absl::StrContains(status.error_message(), "steps[0].level"))
      << status.error_message();
  v1::SendExpectRequest long_pulse;
  v1::ScriptStep* pulse = long_pulse.add_steps();
  pulse->set_signal(v1::CONTROL_LINE_RTS);
  pulse->set_level(false);
  pulse->set_ms(20000);
  status = alice_->stub()->SendExpect(alice_->Context().get(), long_pulse, &got);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(absl::StrContains(status.error_message(), "steps[0].ms")) << status.error_message();
  v1::SendExpectRequest bad_hex;
  bad_hex.set_encoding(v1::ENCODING_HEX);
  *bad_hex.add_steps() = Send("zz");
  status = alice_->stub()->SendExpect(alice_->Context().get(), bad_hex, &got);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();

  v1::SendExpectRequest empty;
  status = alice_->stub()->SendExpect(alice_->Context().get(), empty, &got);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(device_->Received(), "") << "nothing ran";
}

}  // namespace
}  // namespace labgate::serial
