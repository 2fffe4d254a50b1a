// Query (a write and its reply in one call) through the real libserialport against the
// simulated instrument on a pty, via the gRPC service on an in-process channel.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>

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

class PtyQueryTest : public ::testing::Test {
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

  std::unique_ptr<PtyDevice> Device(InstrumentMode mode) {
    auto device = PtyDevice::Create(mode);
    EXPECT_TRUE(device.ok()) << "pty harness: " << device.status();
    return device.ok() ? std::move(*device) : nullptr;
  }

  std::unique_ptr<SerialGrpcService> service_;
  std::unique_ptr<ServiceHost> host_;
  std::unique_ptr<SerialClient> alice_;
  std::unique_ptr<SerialClient> bob_;
};

TEST_F(PtyQueryTest, OneCallWritesTheCommandAndReturnsTheReply) {
  auto device = Device(InstrumentMode::kScpi);
  ASSERT_NE(device, nullptr);
  ASSERT_TRUE(alice_->Open(device->path(), 115200, "\n").ok());
  for (int i = 0; i < 3; ++i) {
    v1::QueryResponse reply;
    grpc::Status status = alice_->Query("", "*IDN?", 2000, &reply);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(reply.data(), kInstrumentId);
    EXPECT_EQ(reply.bytes_read(), static_cast<int64_t>(std::string(kInstrumentId).size()));
    EXPECT_EQ(reply.bytes_written(), 6) << "the terminator is appended";
    EXPECT_FALSE(reply.timed_out());
    EXPECT_EQ(reply.encoding(), v1::ENCODING_TEXT);
    EXPECT_EQ(reply.port_name(), device->path());
    EXPECT_GE(reply.latency_ms(), 0);
  }
  EXPECT_EQ(device->Received(), "*IDN?\n*IDN?\n*IDN?\n");
  // A device libserialport knows is served by it, not by the termios fallback.
  v1::DescribePortRequest describe;
  describe.set_port_name(device->path());
  v1::DescribePortResponse described;
  ASSERT_TRUE(alice_->stub()->DescribePort(alice_->Context().get(), describe, &described).ok());
  EXPECT_EQ(described.backend(), "libserialport");
  // Counted like write + read: bytes both ways, the terminator consumed.
  v1::GetMetricsResponse metrics;
  ASSERT_TRUE(alice_->Metrics("", &metrics).ok());
  EXPECT_EQ(metrics.bytes_written_total(), 18);
  EXPECT_EQ(metrics.bytes_read_total(), 3 * (std::string(kInstrumentId).size() + 1));
  EXPECT_EQ(metrics.timeout_streak(), 0);
}

TEST_F(PtyQueryTest, ATimeoutReturnsWhatCameAndCountsTheStreak) {
  auto device = Device(InstrumentMode::kScpi);
  ASSERT_NE(device, nullptr);
  ASSERT_TRUE(alice_->Open(device->path(), 115200, "\n").ok());
  v1::QueryResponse partial;
  ASSERT_TRUE(alice_->Query("", "PARTIAL", 300, &partial).ok());
  EXPECT_EQ(partial.data(), "partial");
  EXPECT_TRUE(partial.timed_out());
  v1::GetMetricsResponse metrics;
  ASSERT_TRUE(alice_->Metrics("", &metrics).ok());
  EXPECT_EQ(metrics.timeout_streak(), 1);

  // An instrument that stays silent: nothing, not an error.
  device->Stall(std::chrono::milliseconds(400));
  v1::QueryResponse silent;
  ASSERT_TRUE(alice_->Query("", "*IDN?", 100, &silent).ok());
  EXPECT_EQ(silent.data(), "");
  EXPECT_EQ(silent.bytes_read(), 0);
  EXPECT_TRUE(silent.timed_out());
  ASSERT_TRUE(alice_->Metrics("", &metrics).ok());
  EXPECT_EQ(metrics.timeout_streak(), 2);

  // Once it answers, the streak ends. (The late answer to the silent query comes first.)
  v1::QueryResponse answered;
  ASSERT_TRUE(alice_->Query("", "*IDN?", 3000, &answered).ok());
  EXPECT_EQ(answered.data(), kInstrumentId);
  EXPECT_FALSE(answered.timed_out());
  ASSERT_TRUE(alice_->Metrics("", &metrics).ok());
  EXPECT_EQ(metrics.timeout_streak(), 0);
}

TEST_F(PtyQueryTest, BinaryQueriesKeepNulBytesAndTheTerminator) {
  auto device = Device(InstrumentMode::kEcho);
  ASSERT_NE(device, nullptr);
  ASSERT_TRUE(alice_->Open(device->path(), 115200, "\n").ok());
  std::string command("\x00\x01\xff\xfe\x00 binary\x00", 12);
  command += "\n";
  v1::QueryResponse reply;
  grpc::Status status =
      alice_->Query("", absl::Base64Escape(command), 2000, &reply, v1::ENCODING_BASE64);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(reply.encoding(), v1::ENCODING_BASE64);
  std::string echoed;
  ASSERT_TRUE(absl::Base64Unescape(reply.data(), &echoed));
  EXPECT_TRUE(echoed == command) << "binary replies keep the terminator";
  EXPECT_EQ(reply.bytes_read(), static_cast<int64_t>(command.size()));
  EXPECT_EQ(reply.bytes_written(), static_cast<int64_t>(command.size()));
  EXPECT_FALSE(reply.timed_out());

  // Hex with no terminator in the reply stops at max_bytes.
  v1::QueryResponse hex;
  ASSERT_TRUE(alice_->Query("", "00ff00ff", 2000, &hex, v1::ENCODING_HEX, 4).ok());
  EXPECT_EQ(hex.data(), "00ff00ff");
  EXPECT_EQ(hex.bytes_read(), 4);
  EXPECT_FALSE(hex.timed_out());
  EXPECT_TRUE(device->Received() == command + std::string("\x00\xff\x00\xff", 4));
}

// A reply that takes longer than the brief wait on the caller's thread is waited for on the
// port's worker; a call that arrives meanwhile comes after the whole query, not between its
// write and its read.
TEST_F(PtyQueryTest, ASlowReplyIsStillTheQuerysOwn) {
  auto device = Device(InstrumentMode::kScpi);
  ASSERT_NE(device, nullptr);
  ASSERT_TRUE(alice_->Open(device->path(), 115200, "\n").ok());
  device->Stall(std::chrono::milliseconds(200));
  auto slow = std::async(std::launch::async, [&] {
    v1::QueryResponse reply;
    grpc::Status status = alice_->Query("", "*IDN?", 3000, &reply);
    return std::make_pair(status, reply);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the first query is waiting
  v1::QueryResponse second;
  grpc::Status second_status = alice_->Query("", "SECOND", 3000, &second);
  auto [first_status, first] = slow.get();
  ASSERT_TRUE(first_status.ok()) << first_status.error_message();
  EXPECT_EQ(first.data(), kInstrumentId);
  EXPECT_FALSE(first.timed_out());
  ASSERT_TRUE(second_status.ok()) << second_status.error_message();
  EXPECT_EQ(second.data(), "SECOND");
  EXPECT_EQ(device->Received(), "*IDN?\nSECOND\n");
}

// A command larger than the device takes at once: the rest is written on the worker, then
// the reply read there.
TEST_F(PtyQueryTest, ACommandTheDeviceCannotTakeAtOnceIsWrittenWhole) {
  auto device = Device(InstrumentMode::kScpi);
  ASSERT_NE(device, nullptr);
  ASSERT_TRUE(alice_->Open(device->path(), 115200, "\n").ok());
  device->Stall(std::chrono::milliseconds(300));  // nothing is read off the pty meanwhile
  const std::string command(60000, 'A');
  v1::QueryResponse reply;
  grpc::Status status =
      alice_->Query("", command, 5000, &reply, v1::ENCODING_TEXT, /*max_bytes=*/65536);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(reply.bytes_written(), 60001);
  EXPECT_FALSE(reply.timed_out());
  EXPECT_TRUE(reply.data() == command) << "echo of " << reply.data().size() << " bytes";
  EXPECT_TRUE(device->Received() == command + "\n");
}

TEST_F(PtyQueryTest, BadQueriesAreRefusedAndWriteNothing) {
  auto device = Device(InstrumentMode::kScpi);
  ASSERT_NE(device, nullptr);
  v1::QueryResponse reply;
  grpc::Status none_open = alice_->Query("", "*IDN?", 100, &reply);
  EXPECT_FALSE(none_open.ok());
  ASSERT_TRUE(alice_->Open(device->path(), 115200, "\n").ok());
  grpc::Status foreign = bob_->Query(device->path(), "*IDN?", 100, &reply);
  EXPECT_EQ(foreign.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_TRUE(absl::StrContains(foreign.error_message(), "in use by another client"))
      << foreign.error_message();
  grpc::Status empty = alice_->Query("", "", 100, &reply);
  EXPECT_EQ(empty.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  grpc::Status bad_hex = alice_->Query("", "zz", 100, &reply, v1::ENCODING_HEX);
  EXPECT_EQ(bad_hex.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  grpc::Status too_many = alice_->Query("", "*IDN?", 100, &reply, v1::ENCODING_TEXT, 70000);
  EXPECT_EQ(too_many.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(device->Received(), "");
}

}  // namespace
}  // namespace labgate::serial
