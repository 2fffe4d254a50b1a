// The real libserialport against pseudo-terminals with a simulated instrument,
// through the gRPC service (in-process channel, real serialization).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <future>
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
using testing::SerialClient;
using Clock = std::chrono::steady_clock;

class PtySerialTest : public ::testing::Test {
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
    bob_ = std::make_unique<SerialClient>(host_->InProcessChannel(), "bob");
  }
  void TearDown() override {
    if (service_) service_->Shutdown();
    if (host_) host_->Shutdown(std::chrono::seconds(2));
  }

  std::unique_ptr<PtyDevice> Device(InstrumentMode mode = InstrumentMode::kScpi) {
    auto device = PtyDevice::Create(mode);
    EXPECT_TRUE(device.ok()) << "pty harness: " << device.status();
    return device.ok() ? std::move(*device) : nullptr;
  }

  // Reads binary data until `count` bytes arrived (or 5 s passed).
  std::string ReadBytes(SerialClient& client, const std::string& port, size_t count) {
    std::string got;
    const auto deadline = Clock::now() + std::chrono::seconds(5);
    while (got.size() < count && Clock::now() < deadline) {
      v1::ReadResponse response;
      grpc::Status status = client.Read(port, 500, &response, v1::ENCODING_BASE64, 65536);
      EXPECT_TRUE(status.ok()) << status.error_message();
      if (!status.ok()) break;
      std::string bytes;
      EXPECT_TRUE(absl::Base64Unescape(response.data(), &bytes));
      got += bytes;
    }
    return got;
  }

  std::string Query(SerialClient& client, const std::string& port, const std::string& command) {
    grpc::Status wrote = client.Write(port, command);
    EXPECT_TRUE(wrote.ok()) << wrote.error_message();
    v1::ReadResponse response;
    grpc::Status read = client.Read(port, 2000, &response);
    EXPECT_TRUE(read.ok()) << read.error_message();
    return response.data();
  }

  std::unique_ptr<SerialGrpcService> service_;
  std::unique_ptr<ServiceHost> host_;
  std::unique_ptr<SerialClient> alice_;
  std::unique_ptr<SerialClient> bob_;
};

TEST_F(PtySerialTest, OpensAtSeveralSettingsAndAnswersIdn) {
  auto device = Device();
  ASSERT_NE(device, nullptr);
  struct Case {
    int64_t baud;
    v1::DataBits data_bits;
    v1::Parity parity;
    v1::StopBits stop_bits;
    v1::FlowControl flow;
  };
  const Case cases[] = {
      {9600, v1::DATA_BITS_EIGHT, v1::PARITY_NONE, v1::STOP_BITS_ONE, v1::FLOW_CONTROL_NONE},
      // A pty keeps 8 data bits whatever it is told, so 5..7 are covered by the unit tests.
      {115200, v1::DATA_BITS_EIGHT, v1::PARITY_EVEN, v1::STOP_BITS_ONE, v1::FLOW_CONTROL_HARDWARE},
      {19200, v1::DATA_BITS_EIGHT, v1::PARITY_ODD, v1::STOP_BITS_TWO, v1::FLOW_CONTROL_SOFTWARE},
      {57600, v1::DATA_BITS_UNSPECIFIED, v1::PARITY_UNSPECIFIED, v1::STOP_BITS_UNSPECIFIED,
       v1::FLOW_CONTROL_UNSPECIFIED},
      {4000000, v1::DATA_BITS_EIGHT, v1::PARITY_NONE, v1::STOP_BITS_ONE, v1::FLOW_CONTROL_NONE},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.baud);
    v1::OpenPortRequest request;
    request.set_port_name(device->path());
    request.set_baud_rate(c.baud);
    request.set_data_bits(c.data_bits);
    request.set_parity(c.parity);
    request.set_stop_bits(c.stop_bits);
    request.set_flow_control(c.flow);
    request.set_terminator("\n");
    v1::OpenPortResponse opened;
    grpc::Status status = alice_->Open(request, &opened);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(opened.status(), "opened");
    EXPECT_EQ(opened.settings().baud_rate(), c.baud);
    EXPECT_EQ(Query(*alice_, device->path(), "*IDN?"), kInstrumentId);
    v1::GetStatusResponse port_status;
    ASSERT_TRUE(alice_->Status(device->path(), &port_status).ok());
    EXPECT_EQ(port_status.status(), v1::PORT_STATE_OPEN);
    EXPECT_EQ(port_status.settings().baud_rate(), c.baud);
    v1::ClosePortResponse closed;
    ASSERT_TRUE(alice_->Close(device->path(), &closed).ok());
    EXPECT_EQ(closed.status(), "closed");
  }
}

TEST_F(PtySerialTest, ASettingTheDeviceRefusesIsInvalidArgumentNamingIt) {
  auto device = Device();
  ASSERT_NE(device, nullptr);
  v1::OpenPortRequest request;
  request.set_port_name(device->path());
  request.set_baud_rate(9600);
  request.set_data_bits(v1::DATA_BITS_SEVEN);  // a pty keeps 8 data bits
  grpc::Status refused = alice_->Open(request);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(absl::StrContains(refused.error_message(), "data_bits 7")) << refused.error_message();
  // The failed open left nothing behind.
  request.set_data_bits(v1::DATA_BITS_EIGHT);
  ASSERT_TRUE(alice_->Open(request).ok());
}

TEST_F(PtySerialTest, MissingDeviceIsNotFoundAndSecondOpenIsAlreadyOpen) {
  grpc::Status missing = alice_->Open("/dev/ttyUSB-labgate-missing", 9600);
  EXPECT_EQ(missing.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_TRUE(absl::StrContains(missing.error_message(), "/dev/ttyUSB-labgate-missing"))
      << missing.error_message();
  auto device = Device();
  ASSERT_NE(device, nullptr);
  ASSERT_TRUE(alice_->Open(device->path(), 9600).ok());
  grpc::Status again = alice_->Open(device->path(), 9600);
  EXPECT_EQ(again.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_TRUE(absl::StrContains(again.error_message(), "Port is already open"));
}

TEST_F(PtySerialTest, TerminatorReadsJoinChunksAndStripTheTerminator) {
  auto device = Device();
  ASSERT_NE(device, nullptr);
  ASSERT_TRUE(alice_->Open(device->path(), 115200, "\r\n").ok());
  device->Send("abc");
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  device->Send("def\r\nxyz\r\n");
  v1::ReadResponse first, second;
  ASSERT_TRUE(alice_->Read("", 2000, &first).ok());
  EXPECT_EQ(first.data(), "abcdef");
  EXPECT_EQ(first.bytes_read(), 6);
  EXPECT_FALSE(first.timed_out());
  ASSERT_TRUE(alice_->Read("", 2000, &second).ok());
  EXPECT_EQ(second.data(), "xyz");
  EXPECT_EQ(second.bytes_read_total(), 13);
  // Text writes get the terminator; the instrument sees it.
  v1::WriteResponse wrote;
  ASSERT_TRUE(alice_->Write("", "hello", v1::ENCODING_TEXT, &wrote).ok());
  EXPECT_EQ(wrote.bytes_written(), 7);
  v1::ReadResponse echo;
  ASSERT_TRUE(alice_->Read("", 2000, &echo).ok());
  EXPECT_EQ(echo.data(), "hello");
  EXPECT_TRUE(absl::StrContains(device->Received(), "hello\r\n"));
}

TEST_F(PtySerialTest, ReadTimeoutsReturnNothingAndCountTheStreak) {
  auto device = Device();
  ASSERT_NE(device, nullptr);
  ASSERT_TRUE(alice_->Open(device->path(), 9600, "\n").ok());
  for (int i = 1; i <= 2; ++i) {
    const auto start = Clock::now();
    v1::ReadResponse response;
    ASSERT_TRUE(alice_->Read("", 200, &response).ok());
    const auto took = Clock::now() - start;
    EXPECT_TRUE(response.timed_out());
    EXPECT_EQ(response.bytes_read(), 0);
    EXPECT_EQ(response.data(), "");
    EXPECT_GE(took, std::chrono::milliseconds(180));
    EXPECT_LT(took, std::chrono::milliseconds(1500));
    v1::GetMetricsResponse metrics;
    ASSERT_TRUE(alice_->Metrics("", &metrics).ok());
    EXPECT_EQ(metrics.timeout_streak(), i);
  }
  // An unterminated answer comes back when the timeout passes.
  ASSERT_TRUE(alice_->Write("", "PARTIAL").ok());
  v1::ReadResponse partial;
  ASSERT_TRUE(alice_->Read("", 300, &partial).ok());
  EXPECT_EQ(partial.data(), "partial");
  EXPECT_TRUE(partial.timed_out());
  EXPECT_EQ(Query(*alice_, "", "*IDN?"), kInstrumentId);
  v1::GetMetricsResponse metrics;
  ASSERT_TRUE(alice_->Metrics("", &metrics).ok());
  EXPECT_EQ(metrics.timeout_streak(), 0);
}

TEST_F(PtySerialTest, BinaryRoundTripsKeepNulBytes) {
  auto device = Device(InstrumentMode::kEcho);
  ASSERT_NE(device, nullptr);
  ASSERT_TRUE(alice_->Open(device->path(), 115200).ok());
  std::string payload;
  for (int round = 0; round < 8; ++round) {
    for (int byte = 0; byte < 256; ++byte) payload.push_back(static_cast<char>(byte));
  }
  payload += std::string(64, '\0');
  v1::WriteResponse wrote;
  ASSERT_TRUE(alice_->Write("", absl::Base64Escape(payload), v1::ENCODING_BASE64, &wrote).ok());
  EXPECT_EQ(wrote.bytes_written(), static_cast<int64_t>(payload.size()));
  const std::string echoed = ReadBytes(*alice_, device->path(), payload.size());
  EXPECT_EQ(echoed.size(), payload.size());
  EXPECT_TRUE(echoed == payload);
  EXPECT_TRUE(device->Received() == payload);

  // Hex both ways.
  ASSERT_TRUE(alice_->Write("", "00 0a 00 ff", v1::ENCODING_HEX).ok());
  std::string hex_echo;
  const auto deadline = Clock::now() + std::chrono::seconds(3);
  while (hex_echo.size() < 8 && Clock::now() < deadline) {
    v1::ReadResponse response;
    ASSERT_TRUE(alice_->Read("", 500, &response, v1::ENCODING_HEX).ok());
    EXPECT_EQ(response.encoding(), v1::ENCODING_HEX);
    hex_echo += response.data();
  }
  EXPECT_EQ(hex_echo, "000a00ff");

  // Binary that is not UTF-8, read as text, comes back as base64.
  ASSERT_TRUE(alice_->Write("", "/wA=", v1::ENCODING_BASE64).ok());
  v1::ReadResponse text;
  ASSERT_TRUE(alice_->Read("", 1000, &text, v1::ENCODING_TEXT, 2).ok());
  EXPECT_EQ(text.encoding(), v1::ENCODING_BASE64);
  EXPECT_EQ(text.data(), "/wA=");
}

TEST_F(PtySerialTest, AWriteLargerThanTheTtyBufferArrivesWhole) {
  // More than the pty takes at once: part is written without waiting, the rest by the
  // port's worker as the instrument drains it.
  auto device = Device(InstrumentMode::kScpi);
  ASSERT_NE(device, nullptr);
  ASSERT_TRUE(alice_->Open(device->path(), 115200).ok());
  std::string payload;
  uint32_t state = 12345;
  while (payload.size() < 60 * 1024) {
    state = state * 1103515245u + 12345u;
    const char byte = static_cast<char>(state >> 24);
    if (byte != '\n' && byte != '\r') payload.push_back(byte);  // the instrument acts on lines
  }
  v1::WriteResponse wrote;
  ASSERT_TRUE(alice_->Write("", absl::Base64Escape(payload), v1::ENCODING_BASE64, &wrote).ok());
  EXPECT_EQ(wrote.bytes_written(), static_cast<int64_t>(payload.size()));
  const auto deadline = Clock::now() + std::chrono::seconds(5);
  while (device->Received().size() < payload.size() && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_TRUE(device->Received() == payload);
}

TEST_F(PtySerialTest, WritesAndReadsAreLimitedTo64KiB) {
  auto device = Device(InstrumentMode::kEcho);
  ASSERT_NE(device, nullptr);
  ASSERT_TRUE(alice_->Open(device->path(), 115200).ok());
  grpc::Status big = alice_->Write("", std::string(65537, 'x'));
  EXPECT_EQ(big.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(absl::StrContains(big.error_message(), "65536")) << big.error_message();
  v1::ReadResponse response;
  grpc::Status too_many = alice_->Read("", 10, &response, v1::ENCODING_TEXT, 65537);
  EXPECT_EQ(too_many.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_F(PtySerialTest, ReconfigureKeepsThePortOpenAndResetsMetrics) {
  auto device = Device();
  ASSERT_NE(device, nullptr);
  ASSERT_TRUE(alice_->Open(device->path(), 9600, "\n").ok());
  EXPECT_EQ(Query(*alice_, "", "*IDN?"), kInstrumentId);
  v1::GetMetricsResponse before;
  ASSERT_TRUE(alice_->Metrics("", &before).ok());
  EXPECT_GT(before.bytes_written_total(), 0);
  EXPECT_GT(before.bytes_read_total(), 0);

  v1::ReconfigurePortRequest request;
  request.set_baud_rate(115200);
  request.set_parity(v1::PARITY_EVEN);
  request.set_terminator("\r\n");
  v1::ReconfigurePortResponse response;
  auto context = alice_->Context();
  grpc::Status status = alice_->stub()->ReconfigurePort(context.get(), request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(response.status(), "reconfigured");
  EXPECT_EQ(response.settings().baud_rate(), 115200);
  EXPECT_EQ(response.settings().parity(), v1::PARITY_EVEN);
  EXPECT_EQ(response.settings().data_bits(), v1::DATA_BITS_EIGHT);

  v1::GetMetricsResponse after;
  ASSERT_TRUE(alice_->Metrics("", &after).ok());
  EXPECT_EQ(after.state(), v1::PORT_STATE_OPEN);
  EXPECT_EQ(after.bytes_written_total(), 0);
  EXPECT_EQ(after.bytes_read_total(), 0);
  // Still works, now with "\r\n", which the instrument answers in kind.
  ASSERT_TRUE(alice_->Write("", "*IDN?").ok());
  v1::ReadResponse id;
  ASSERT_TRUE(alice_->Read("", 1000, &id).ok());
  EXPECT_EQ(id.data(), kInstrumentId);
  EXPECT_TRUE(absl::StrContains(device->Received(), "*IDN?\r\n"));

  v1::ReconfigurePortRequest bad;
  bad.set_data_bits(static_cast<v1::DataBits>(9));
  auto bad_context = alice_->Context();
  grpc::Status refused = alice_->stub()->ReconfigurePort(bad_context.get(), bad, &response);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(absl::StrContains(refused.error_message(), "data_bits"));
}

TEST_F(PtySerialTest, IdlePortClosesOnTheNextRead) {
  auto device = Device();
  ASSERT_NE(device, nullptr);
  v1::OpenPortRequest request;
  request.set_port_name(device->path());
  request.set_baud_rate(9600);
  request.set_terminator("\n");
  request.set_idle_disconnect_ms(300);
  ASSERT_TRUE(alice_->Open(request).ok());
  EXPECT_EQ(Query(*alice_, "", "*IDN?"), kInstrumentId);
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  v1::ReadResponse response;
  ASSERT_TRUE(alice_->Read("", 100, &response).ok());
  EXPECT_EQ(response.event(), "auto_close");
  EXPECT_EQ(response.reason(), "idle_timeout");
  EXPECT_EQ(response.idle_ms(), 300);
  EXPECT_EQ(response.idle_close_count(), 1);
  v1::GetStatusResponse status;
  ASSERT_TRUE(alice_->Status(device->path(), &status).ok());
  EXPECT_EQ(status.status(), v1::PORT_STATE_CLOSED);
  // It can be opened again at once.
  ASSERT_TRUE(alice_->Open(request).ok());
  EXPECT_EQ(Query(*alice_, "", "*IDN?"), kInstrumentId);
  v1::GetMetricsResponse metrics;
  ASSERT_TRUE(alice_->Metrics("", &metrics).ok());
  EXPECT_EQ(metrics.idle_close_count(), 1);
}

TEST_F(PtySerialTest, DeviceLossIsUnavailableAndThePortReopensWhenItReturns) {
  auto device = Device();
  ASSERT_NE(device, nullptr);
  ASSERT_TRUE(alice_->Open(device->path(), 115200, "\n").ok());
  EXPECT_EQ(Query(*alice_, "", "*IDN?"), kInstrumentId);

  grpc::ClientContext subscribe_context;
  v1::SubscribeRequest subscribe;
  subscribe.set_port_name(device->path());
  auto events = alice_->stub()->Subscribe(&subscribe_context, subscribe);
  v1::PortEvent event;
  ASSERT_TRUE(events->Read(&event));
  EXPECT_EQ(event.type(), v1::PortEvent::TYPE_OPENED);

  device->Disconnect();
  // The subscriber's poll notices the hang-up and reports it.
  bool saw_error = false;
  while (events->Read(&event)) {
    if (event.type() == v1::PortEvent::TYPE_ERROR) {
      saw_error = true;
      EXPECT_EQ(event.reason(), "device disconnected");
      break;
    }
  }
  EXPECT_TRUE(saw_error);
  v1::ReadResponse response;
  grpc::Status read = alice_->Read("", 200, &response);
  EXPECT_EQ(read.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_TRUE(absl::StrContains(read.error_message(), "device disconnected"));
  grpc::Status write = alice_->Write("", "*IDN?");
  EXPECT_EQ(write.error_code(), grpc::StatusCode::UNAVAILABLE);
  v1::GetStatusResponse status;
  ASSERT_TRUE(alice_->Status(device->path(), &status).ok());
  EXPECT_EQ(status.status(), v1::PORT_STATE_ERROR);

  ASSERT_TRUE(device->Reconnect().ok());
  ASSERT_TRUE(alice_->Open(device->path(), 115200, "\n").ok());
  ASSERT_TRUE(events->Read(&event));
  EXPECT_EQ(event.type(), v1::PortEvent::TYPE_CLOSED);  // the failed port is replaced
  ASSERT_TRUE(events->Read(&event));
  EXPECT_EQ(event.type(), v1::PortEvent::TYPE_OPENED);
  EXPECT_EQ(Query(*alice_, "", "*IDN?"), kInstrumentId);
  subscribe_context.TryCancel();
  while (events->Read(&event)) {
  }
  events->Finish().IgnoreError();
}

// Another owner's WatchPorts stream hears the device go (noticed by the owner's I/O) and
// its port come back when opened again.
TEST_F(PtySerialTest, WatchPortsHearsADeviceLostAndBack) {
  auto device = Device();
  ASSERT_NE(device, nullptr);
  grpc::ClientContext watch_context;
  auto watch = bob_->stub()->WatchPorts(&watch_context, v1::WatchPortsRequest());
  watch->WaitForInitialMetadata();
  ASSERT_TRUE(alice_->Open(device->path(), 115200, "\n").ok());
  v1::PortEvent event;
  ASSERT_TRUE(watch->Read(&event));
  EXPECT_EQ(event.type(), v1::PortEvent::TYPE_OPENED);
  EXPECT_EQ(event.port_name(), device->path());

  device->Disconnect();
  v1::ReadResponse response;
  EXPECT_EQ(alice_->Read("", 500, &response).error_code(), grpc::StatusCode::UNAVAILABLE);
  ASSERT_TRUE(watch->Read(&event));
  EXPECT_EQ(event.type(), v1::PortEvent::TYPE_ERROR);
  EXPECT_EQ(event.reason(), "device disconnected");

  ASSERT_TRUE(device->Reconnect().ok());
  ASSERT_TRUE(alice_->Open(device->path(), 115200, "\n").ok());
  ASSERT_TRUE(watch->Read(&event));
  EXPECT_EQ(event.type(), v1::PortEvent::TYPE_CLOSED);
  EXPECT_EQ(event.reason(), "replaced by a new open");
  ASSERT_TRUE(watch->Read(&event));
  EXPECT_EQ(event.type(), v1::PortEvent::TYPE_OPENED);
  EXPECT_EQ(Query(*alice_, "", "*IDN?"), kInstrumentId);
  watch_context.TryCancel();
  while (watch->Read(&event)) {
  }
  watch->Finish().IgnoreError();
}

TEST_F(PtySerialTest, DeviceDroppingOffMidCommandIsUnavailable) {
  auto device = Device();
  ASSERT_NE(device, nullptr);
  ASSERT_TRUE(alice_->Open(device->path(), 115200, "\n").ok());
  ASSERT_TRUE(alice_->Write("", "DROP").ok());
  v1::ReadResponse response;
  grpc::Status read = alice_->Read("", 2000, &response);
  EXPECT_EQ(read.error_code(), grpc::StatusCode::UNAVAILABLE) << read.error_message();
  v1::ClosePortResponse closed;
  ASSERT_TRUE(alice_->Close("", &closed).ok());
  EXPECT_EQ(closed.status(), "closed");
}

TEST_F(PtySerialTest, AStalledPortDoesNotDelayAnother) {
  auto slow = Device();
  auto fast = Device();
  ASSERT_NE(slow, nullptr);
  ASSERT_NE(fast, nullptr);
  ASSERT_TRUE(alice_->Open(slow->path(), 115200, "\n").ok());
  ASSERT_TRUE(alice_->Open(fast->path(), 115200, "\n").ok());
  slow->Stall(std::chrono::milliseconds(3000));
  ASSERT_TRUE(alice_->Write(slow->path(), "*IDN?").ok());

  const auto start = Clock::now();
  auto stalled = std::async(std::launch::async, [&] {
    v1::ReadResponse response;
    grpc::Status status = alice_->Read(slow->path(), 2000, &response);
    return std::make_pair(status.ok(), response);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(Query(*alice_, fast->path(), "*IDN?"), kInstrumentId);
    v1::GetStatusResponse status;  // status of the stalled port answers at once too
    ASSERT_TRUE(alice_->Status(slow->path(), &status).ok());
  }
  const auto fast_done = Clock::now() - start;
  EXPECT_EQ(stalled.wait_for(std::chrono::seconds(0)), std::future_status::timeout)
      << "the fast port's 20 round trips should finish before the stalled read";
  EXPECT_LT(fast_done, std::chrono::milliseconds(1500));
  auto [ok, response] = stalled.get();
  EXPECT_TRUE(ok);
  EXPECT_TRUE(response.timed_out());
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(1900));
}

// Many write + read round trips in a row, each answered with its own reply. (Their timing
// is the serial benchmark's: bench/serial.)
TEST_F(PtySerialTest, ManyRoundTripsInARowEachGetTheirReply) {
  auto device = Device();
  ASSERT_NE(device, nullptr);
  ASSERT_TRUE(alice_->Open(device->path(), 115200, "\n").ok());
  for (int i = 0; i < 200; ++i) ASSERT_EQ(Query(*alice_, "", "*IDN?"), kInstrumentId) << i;
  std::string expected;
  for (int i = 0; i < 200; ++i) expected += "*IDN?\n";
  EXPECT_EQ(device->Received(), expected);
}

TEST_F(PtySerialTest, AnotherOwnerIsRefused) {
  auto device = Device();
  ASSERT_NE(device, nullptr);
  ASSERT_TRUE(alice_->Open(device->path(), 9600, "\n").ok());
  const std::string expected =
      "port " + device->path() + " is in use by another client (held by alice)";
  grpc::Status open = bob_->Open(device->path(), 9600);
  EXPECT_EQ(open.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(open.error_message(), expected);
  grpc::Status write = bob_->Write(device->path(), "*IDN?");
  EXPECT_EQ(write.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(write.error_message(), expected);
  v1::ReadResponse response;
  EXPECT_EQ(bob_->Read(device->path(), 10, &response).error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(bob_->Close(device->path()).error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  // Bob has no port of his own, so an unnamed call does not reach Alice's.
  EXPECT_EQ(bob_->Write("", "*IDN?").error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  v1::GetStatusResponse status;
  ASSERT_TRUE(bob_->Status(device->path(), &status).ok());
  EXPECT_EQ(status.status(), v1::PORT_STATE_OPEN);
  EXPECT_FALSE(status.owned_by_caller());
  EXPECT_EQ(Query(*alice_, device->path(), "*IDN?"), kInstrumentId);
}

TEST_F(PtySerialTest, DescribeAndListKnowTheDevice) {
  auto device = Device();
  ASSERT_NE(device, nullptr);
  v1::DescribePortRequest request;
  request.set_port_name(device->path());
  v1::DescribePortResponse described;
  auto context = alice_->Context();
  ASSERT_TRUE(alice_->stub()->DescribePort(context.get(), request, &described).ok());
  EXPECT_EQ(described.port().port_name(), device->path());
  EXPECT_EQ(described.state(), v1::PORT_STATE_CLOSED);

  ASSERT_TRUE(alice_->Open(device->path(), 9600).ok());
  v1::ListPortsResponse listed;
  auto list_context = alice_->Context();
  ASSERT_TRUE(alice_->stub()->ListPorts(list_context.get(), v1::ListPortsRequest(), &listed).ok());
  bool found = false;
  for (const auto& port : listed.ports()) found |= port.port_name() == device->path();
  EXPECT_TRUE(found);

  request.set_port_name("/dev/ttyUSB-labgate-missing");
  auto missing_context = alice_->Context();
  grpc::Status missing = alice_->stub()->DescribePort(missing_context.get(), request, &described);
  EXPECT_EQ(missing.error_code(), grpc::StatusCode::NOT_FOUND);
}

}  // namespace
}  // namespace labgate::serial
