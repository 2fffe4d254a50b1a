// The console's SSE relays against a real HttpServer and a real serial service served
// in-process: a stream delivers a port's events, ends (and frees its slot and its gRPC
// stream) when the HTTP client leaves, is capped, and ends with an "end" event on Stop.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "common/service_host.h"
#include "gateway/backends/open_streams.h"
#include "gateway/console/console.h"
#include "gateway/core/process_io_context.h"
#include "gateway/http/http_server.h"
#include "gateway/mcp/mcp_server.h"
#include "labgate/serial/v1/serial.grpc.pb.h"
#include "serial-service/serial_service.h"

namespace labgate::gateway::console {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// Waits up to 20 s for `condition`.
template <typename Condition>
bool Eventually(Condition condition) {
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

// One GET on a raw socket whose chunked SSE body is read event by event (10 s per read).
class SseClient {
 public:
  SseClient(uint16_t port, const std::string& target) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    timeval timeout{10, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) return;
    const std::string request = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    ::send(fd_, request.data(), request.size(), MSG_NOSIGNAL);
  }
  ~SseClient() { Close(); }
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  // The status code of the response (its head is consumed).
  int Status() {
    size_t end;
    while ((end = buffer_.find("\r\n\r\n")) == std::string::npos) {
      if (!Fill()) return 0;
    }
    const int status = std::stoi(buffer_.substr(9, 3));
    chunked_ = buffer_.substr(0, end).find("Transfer-Encoding: chunked") != std::string::npos;
    buffer_.erase(0, end + 4);
    return status;
  }
  // The next `data:` event as JSON; nullopt once the body ended (or on error).
  std::optional<json> Next() {
    size_t end;
    while ((end = body_.find("\n\n")) == std::string::npos) {
      if (ended_ || !ReadChunk()) return std::nullopt;
    }
    std::string block = body_.substr(0, end);
    body_.erase(0, end + 2);
    if (block.rfind("data: ", 0) != 0) return Next();  // a keep-alive comment
    return json::parse(block.substr(6));
  }
  bool ended() const { return ended_; }

 private:
  bool Fill() {
    char scratch[8192];
    const ssize_t n = ::recv(fd_, scratch, sizeof(scratch), 0);
    if (n <= 0) return false;
    buffer_.append(scratch, static_cast<size_t>(n));
    return true;
  }
  bool ReadChunk() {
    if (!chunked_) return false;
    size_t line_end;
    while ((line_end = buffer_.find("\r\n")) == std::string::npos) {
      if (!Fill()) return false;
    }
    const size_t size = std::stoul(buffer_.substr(0, line_end), nullptr, 16);
    while (buffer_.size() < line_end + 2 + size + 2) {
      if (!Fill()) return false;
    }
    body_ += buffer_.substr(line_end + 2, size);
    buffer_.erase(0, line_end + 2 + size + 2);
    if (size == 0) ended_ = true;
    return true;
  }

  int fd_ = -1;
  std::string buffer_;
  std::string body_;
  bool chunked_ = false;
  bool ended_ = false;
};

class ConsoleStreamsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto serial = labgate::serial::CreateSerialService({});
    ASSERT_TRUE(serial.ok()) << serial.status();
    serial_ = std::move(*serial);
    auto host = ServiceHost::Start("", {serial_.get()});
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = std::move(*host);
    channel_ = host_->InProcessChannel();

    // A port for the streams to watch, held by another client.
    auto stub = labgate::serial::v1::SerialService::NewStub(channel_);
    grpc::ClientContext context;
    context.AddMetadata("labgate-owner", "tester");
    labgate::serial::v1::OpenPortRequest open;
    open.set_port_name("loop://watched");
    open.set_baud_rate(9600);
    labgate::serial::v1::OpenPortResponse opened;
    ASSERT_TRUE(stub->OpenPort(&context, open, &opened).ok());

    ConsoleOptions options;
    options.serial_benches =
        std::make_shared<const SerialBenches>(std::vector<Bench>{Bench{"", "", channel_}});
    options.session_channel = channel_;
    options.health_channels = {{"serial service (embedded)", channel_}};
    options.max_streams = 1;
    console_ = std::make_unique<Console>(options);

    work_ = std::make_unique<WorkGuard>(boost::asio::make_work_guard(io_));
    for (int i = 0; i < 2; ++i) threads_.emplace_back([this] { io_.run(); });
    http_ = std::make_unique<http::HttpServer>(io_, &mcp_, http::HttpOptions());
    http_->SetConsole(console_.get());
    ASSERT_TRUE(http_->Start().ok());
  }

  void TearDown() override {
    http_->Stop();
    console_->Stop();
    EXPECT_TRUE(Eventually([&] { return console_->open_streams() == 0; }));
    serial_->Shutdown();
    host_->Shutdown(2s);
    EXPECT_TRUE(OpenStreams::WaitUntilNone(10s)) << "a relay's gRPC stream never finished";
    work_.reset();
    io_.stop();
    for (auto& thread : threads_) thread.join();
  }

  const std::string kEvents = "/console/api/ports/loop%3A%2F%2Fwatched/events";

  using WorkGuard = boost::asio::executor_work_guard<boost::asio::io_context::executor_type>;
  std::unique_ptr<labgate::serial::SerialGrpcService> serial_;
  std::unique_ptr<ServiceHost> host_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<Console> console_;
  McpServer mcp_;
  // gRPC's threads may still hand it work after the test (see ProcessLifetimeIoContext).
  boost::asio::io_context& io_ = ProcessLifetimeIoContext();
  std::unique_ptr<WorkGuard> work_;
  std::vector<std::thread> threads_;
  std::unique_ptr<http::HttpServer> http_;
};

TEST_F(ConsoleStreamsTest, AStreamEndsWhenItsClientLeavesAndIsCappedMeanwhile) {
  auto first = std::make_unique<SseClient>(http_->port(), kEvents);
  ASSERT_EQ(first->Status(), 200);
  std::optional<json> event;
  do {
    event = first->Next();
    ASSERT_TRUE(event.has_value());
  } while ((*event)["type"] == "ready");
  EXPECT_EQ((*event)["type"], "opened");
  EXPECT_EQ((*event)["reason"], "current state");
  EXPECT_EQ(console_->open_streams(), 1u);
  EXPECT_GE(OpenStreams::count(), 1u);

  SseClient second(http_->port(), kEvents);
  EXPECT_EQ(second.Status(), 503) << "one stream at a time in this test";

  // The client goes: its relay is cancelled, which frees the slot and the gRPC stream.
  first->Close();
  ASSERT_TRUE(Eventually([&] { return console_->open_streams() == 0; }));
  EXPECT_TRUE(OpenStreams::WaitUntilNone(10s));

  SseClient third(http_->port(), kEvents);
  EXPECT_EQ(third.Status(), 200);
  event = third.Next();
  ASSERT_TRUE(event.has_value());
}

TEST_F(ConsoleStreamsTest, StopEndsOpenStreamsWithAnEndEvent) {
  SseClient client(http_->port(), kEvents);
  ASSERT_EQ(client.Status(), 200);
  ASSERT_TRUE(client.Next().has_value());
  console_->Stop();
  std::optional<json> last;
  while (auto event = client.Next()) last = event;
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last.value_or(json())["type"], "end");
  EXPECT_TRUE(client.ended()) << "the chunked body is terminated";
  EXPECT_TRUE(Eventually([&] { return console_->open_streams() == 0; }));

  SseClient refused(http_->port(), kEvents);
  EXPECT_EQ(refused.Status(), 503);
}

}  // namespace
}  // namespace labgate::gateway::console
