// The fixture of the transcript and replay tests: a real labgate-session child, a serial
// service recording into it, and the real libserialport on pty instruments.
#pragma once

#include <arpa/inet.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "common/service_host.h"
#include "labgate/session/v1/session.grpc.pb.h"
#include "serial-service/serial_service.h"
#include "serial-service/tests/serial_test_client.h"
#include "serial-service/tests/session_child.h"
#include "tests/serial_harness/pty_device.h"

namespace labgate::serial::testing {

using serial_harness::InstrumentMode;
using serial_harness::PtyDevice;
namespace session_v1 = labgate::session::v1;

// A port nothing listens on yet (bound once, then released).
inline int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  close(fd);
  return port;
}

inline std::shared_ptr<grpc::Channel> QuickReconnectChannel(const std::string& address) {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 500);
  return grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
}

struct Line {
  std::string direction;
  std::string content;
  bool operator==(const Line& other) const {
    return direction == other.direction && content == other.content;
  }
};

inline std::ostream& operator<<(std::ostream& out, const Line& line) {
  return out << line.direction << ":" << absl::CEscape(line.content);
}

class TranscriptFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(serial_harness::ShimLoaded()) << "tiocm_shim.so is not preloaded";
    char pattern[] = "/tmp/labgate-transcript-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    data_dir_ = pattern;
    session_ = std::make_unique<SessionChild>(data_dir_);
  }
  void TearDown() override {
    if (service_) service_->Shutdown();
    if (host_) host_->Shutdown(std::chrono::seconds(2));
    session_.reset();
    std::filesystem::remove_all(data_dir_);
  }

  void StartSerial(const std::string& session_address, size_t queue_limit = 10000,
                   CaptureOptions capture = {}) {
    SerialServiceOptions options;
    options.session_channel = QuickReconnectChannel(session_address);
    options.record_queue_limit = queue_limit;
    options.capture = capture;
    options.profiles_dir = profiles_dir_;
    options.instruments_file = instruments_file_;
    auto service = CreateSerialService(options);
    ASSERT_TRUE(service.ok()) << service.status();
    service_ = std::move(*service);
    auto host = ServiceHost::Start("", {service_.get()});
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = std::move(*host);
    client_ = std::make_unique<SerialClient>(host_->InProcessChannel(), "alice");
    sessions_ = session_v1::SessionService::NewStub(QuickReconnectChannel(session_address));
  }

  std::string CreateSession() {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    context.set_wait_for_ready(true);
    session_v1::CreateSessionRequest request;
    request.set_device_id("sim");
    session_v1::CreateSessionResponse response;
    grpc::Status status = sessions_->CreateSession(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.session().id();
  }

  std::vector<session_v1::Message> Transcript(const std::string& session_id) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    context.set_wait_for_ready(true);
    session_v1::ListMessagesRequest request;
    request.set_session_id(session_id);
    request.set_limit(1000);
    session_v1::ListMessagesResponse response;
    grpc::Status status = sessions_->ListMessages(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return {response.messages().begin(), response.messages().end()};
  }

  v1::GetMetricsResponse Metrics(const std::string& port) {
    v1::GetMetricsResponse metrics;
    EXPECT_TRUE(client_->Metrics(port, &metrics).ok());
    return metrics;
  }

  // Waits until no record of `port` is waiting for the session service.
  bool WaitDelivered(const std::string& port) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      if (Metrics(port).records_pending() == 0) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  v1::GetStatusResponse Status(const std::string& port) {
    v1::GetStatusResponse status;
    EXPECT_TRUE(client_->Status(port, &status).ok());
    return status;
  }

  // Opens `device` bound to `session_id`, with a "\n" terminator.
  void OpenBound(const std::string& device, const std::string& session_id) {
    v1::OpenPortRequest open;
    open.set_port_name(device);
    open.set_baud_rate(115200);
    open.set_terminator("\n");
    open.set_session_id(session_id);
    ASSERT_TRUE(client_->Open(open).ok());
  }

  // Every rx byte of the transcript, in record order.
  static std::string RxBytes(const std::vector<session_v1::Message>& messages) {
    std::string rx;
    for (const session_v1::Message& message : messages) {
      if (message.direction() != "rx") continue;
      if (absl::StrContains(message.features(), "base64")) {
        std::string raw;
        EXPECT_TRUE(absl::Base64Unescape(message.content(), &raw));
        rx += raw;
      } else {
        rx += message.content();
      }
    }
    return rx;
  }

  std::unique_ptr<PtyDevice> Device(InstrumentMode mode) {
    auto device = PtyDevice::Create(mode);
    EXPECT_TRUE(device.ok()) << "pty harness: " << device.status();
    return device.ok() ? std::move(*device) : nullptr;
  }

  std::string data_dir_;
  std::string profiles_dir_, instruments_file_;  // set before StartSerial for instruments
  std::unique_ptr<SessionChild> session_;
  std::unique_ptr<SerialGrpcService> service_;
  std::unique_ptr<ServiceHost> host_;
  std::unique_ptr<SerialClient> client_;
  std::unique_ptr<session_v1::SessionService::Stub> sessions_;
};

}  // namespace labgate::serial::testing
