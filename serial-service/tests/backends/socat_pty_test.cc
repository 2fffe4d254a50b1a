// Any tty path opens: a socat pty pair, outside the namespace harness and without the
// modem-line shim, so libserialport refuses it and the termios backend serves it. The
// far end is answered by a small responder thread in this test.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "common/service_host.h"
#include "serial-service/serial_service.h"
#include "serial-service/tests/serial_test_client.h"

extern char** environ;

namespace labgate::serial {
namespace {

using testing::SerialClient;
constexpr char kReply[] = "SOCAT,SIM,1";

// `socat pty,link=A pty,link=B` as a child process; the links exist once it is ready.
class SocatPair {
 public:
  SocatPair() {
    char pattern[] = "/tmp/labgate-socat-XXXXXX";
    dir_ = mkdtemp(pattern) != nullptr ? pattern : "";
    a_ = dir_ + "/instrument";
    b_ = dir_ + "/far-end";
    const std::string left = "pty,raw,echo=0,link=" + a_;
    const std::string right = "pty,raw,echo=0,link=" + b_;
    const char* argv[] = {"socat", "-d", "-d", left.c_str(), right.c_str(), nullptr};
    if (posix_spawnp(&pid_, "socat", nullptr, nullptr, const_cast<char**>(argv), environ) != 0) {
      pid_ = -1;
      return;
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline &&
           !(std::filesystem::exists(a_) && std::filesystem::exists(b_))) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  ~SocatPair() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
    }
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  bool ready() const {
    return pid_ > 0 && std::filesystem::exists(a_) && std::filesystem::exists(b_);
  }
  const std::string& instrument_path() const { return a_; }
  const std::string& far_end_path() const { return b_; }

 private:
  std::string dir_, a_, b_;
  pid_t pid_ = -1;
};

// Answers "*IDN?" lines with kReply and echoes everything else, byte for byte.
class Responder {
 public:
  explicit Responder(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (fd_ >= 0) thread_ = std::thread([this] { Run(); });
  }
  ~Responder() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    if (fd_ >= 0) ::close(fd_);
  }
  bool ok() const { return fd_ >= 0; }
  std::string Received() {
    std::lock_guard<std::mutex> lock(mu_);
    return received_;
  }

 private:
  void Run() {
    std::string line;
    while (!stop_) {
      pollfd entry = {fd_, POLLIN, 0};
      if (poll(&entry, 1, 50) <= 0 || !(entry.revents & POLLIN)) continue;
      char buffer[512];
      const ssize_t got = ::read(fd_, buffer, sizeof(buffer));
      if (got <= 0) continue;
      {
        std::lock_guard<std::mutex> lock(mu_);
        received_.append(buffer, static_cast<size_t>(got));
      }
      line.append(buffer, static_cast<size_t>(got));
      if (absl::StartsWith(line, "*IDN?")) {
        if (line.find('\n') == std::string::npos) continue;
        Send(std::string(kReply) + "\n");
      } else {
        Send(line);
      }
      line.clear();
    }
  }
  void Send(const std::string& bytes) {
    if (::write(fd_, bytes.data(), bytes.size()) < 0) ADD_FAILURE() << "responder write failed";
  }

  int fd_ = -1;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mu_;
  std::string received_;
};

class SocatPtyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto service = CreateSerialService(SerialServiceOptions{});
    ASSERT_TRUE(service.ok()) << service.status();
    service_ = std::move(*service);
    auto host = ServiceHost::Start("", {service_.get()});
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = std::move(*host);
    client_ = std::make_unique<SerialClient>(host_->InProcessChannel(), "alice");
  }
  void TearDown() override {
    if (service_) service_->Shutdown();
    if (host_) host_->Shutdown(std::chrono::seconds(2));
  }

  std::unique_ptr<SerialGrpcService> service_;
  std::unique_ptr<ServiceHost> host_;
  std::unique_ptr<SerialClient> client_;
};

TEST_F(SocatPtyTest, ASocatLinkOpensThroughTermiosAndQueries) {
  SocatPair pair;
  ASSERT_TRUE(pair.ready()) << "socat did not create its pty links";
  Responder responder(pair.far_end_path());
  ASSERT_TRUE(responder.ok());

  v1::OpenPortRequest open;
  open.set_port_name(pair.instrument_path());
  open.set_baud_rate(115200);
  open.set_terminator("\n");
  grpc::Status opened = client_->Open(open);
  ASSERT_TRUE(opened.ok()) << opened.error_message();

  v1::DescribePortRequest describe;
  describe.set_port_name(pair.instrument_path());
  v1::DescribePortResponse described;
  ASSERT_TRUE(client_->stub()->DescribePort(client_->Context().get(), describe, &described).ok());
  EXPECT_EQ(described.backend(), "termios");
  EXPECT_EQ(described.state(), v1::PORT_STATE_OPEN);
  EXPECT_TRUE(described.owned_by_caller());

  v1::QueryResponse reply;
  grpc::Status queried = client_->Query("", "*IDN?", 3000, &reply);
  ASSERT_TRUE(queried.ok()) << queried.error_message();
  EXPECT_EQ(reply.data(), kReply);
  EXPECT_FALSE(reply.timed_out());

  // Binary both ways, NUL bytes included.
  const std::string payload("\x00\x01\xfe\xff\x00", 5);
  v1::WriteResponse wrote;
  ASSERT_TRUE(client_->Write("", absl::Base64Escape(payload), v1::ENCODING_BASE64, &wrote).ok());
  EXPECT_EQ(wrote.bytes_written(), 5);
  std::string echoed;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (echoed.size() < payload.size() && std::chrono::steady_clock::now() < deadline) {
    v1::ReadResponse read;
    ASSERT_TRUE(client_->Read("", 500, &read, v1::ENCODING_BASE64).ok());
    std::string bytes;
    ASSERT_TRUE(absl::Base64Unescape(read.data(), &bytes));
    echoed += bytes;
  }
  EXPECT_TRUE(echoed == payload);
  EXPECT_TRUE(responder.Received() == "*IDN?\n" + payload);

  v1::ClosePortResponse closed;
  ASSERT_TRUE(client_->Close("", &closed).ok());
  EXPECT_EQ(closed.status(), "closed");
}

TEST_F(SocatPtyTest, ThePtyOpensByItsDevPtsPathAndAClosedOneIsDescribed) {
  SocatPair pair;
  ASSERT_TRUE(pair.ready());
  const std::string pts = std::filesystem::read_symlink(pair.instrument_path()).string();
  ASSERT_TRUE(absl::StartsWith(pts, "/dev/pts/")) << pts;
  v1::DescribePortRequest describe;
  describe.set_port_name(pts);
  v1::DescribePortResponse described;
  grpc::Status status =
      client_->stub()->DescribePort(client_->Context().get(), describe, &described);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(described.backend(), "termios");
  EXPECT_EQ(described.state(), v1::PORT_STATE_CLOSED);

  Responder responder(pair.far_end_path());
  ASSERT_TRUE(responder.ok());
  ASSERT_TRUE(client_->Open(pts, 9600, "\n").ok());
  v1::QueryResponse reply;
  ASSERT_TRUE(client_->Query(pts, "hello", 3000, &reply).ok());
  EXPECT_EQ(reply.data(), "hello");
}

// A pty has no modem lines: every control-line call says so, naming the backend, and the
// port keeps serving I/O afterwards.
TEST_F(SocatPtyTest, ControlLinesOnAPtyAreRefusedNamingTheBackendAndIoGoesOn) {
  SocatPair pair;
  ASSERT_TRUE(pair.ready());
  const std::string pts = std::filesystem::read_symlink(pair.instrument_path()).string();
  Responder responder(pair.far_end_path());
  ASSERT_TRUE(responder.ok());
  ASSERT_TRUE(client_->Open(pts, 9600, "\n").ok());
  v1::SignalsResponse lines;
  v1::GetSignalsRequest get;
  get.set_port_name(pts);
  v1::SetSignalsRequest set;
  set.set_port_name(pts);
  set.set_dtr(false);
  v1::PulseSignalRequest pulse;
  pulse.set_port_name(pts);
  pulse.set_signal(v1::CONTROL_LINE_DTR);
  pulse.set_ms(50);
  v1::SendBreakRequest brk;
  brk.set_port_name(pts);
  brk.set_ms(50);
  auto* stub = client_->stub();
  for (const grpc::Status& refused : {stub->GetSignals(client_->Context().get(), get, &lines),
                                      stub->SetSignals(client_->Context().get(), set, &lines),
                                      stub->PulseSignal(client_->Context().get(), pulse, &lines),
                                      stub->SendBreak(client_->Context().get(), brk, &lines)}) {
    EXPECT_EQ(refused.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
    EXPECT_TRUE(absl::StrContains(refused.error_message(), "the termios backend cannot"))
        << refused.error_message();
  }
  v1::QueryResponse reply;
  ASSERT_TRUE(client_->Query(pts, "still here", 3000, &reply).ok());
  EXPECT_EQ(reply.data(), "still here");
}

TEST_F(SocatPtyTest, AFileThatIsNotATtyIsRefusedClearly) {
  char pattern[] = "/tmp/labgate-not-a-tty-XXXXXX";
  const int fd = mkstemp(pattern);
  ASSERT_GE(fd, 0);
  ::close(fd);
  grpc::Status refused = client_->Open(pattern, 9600);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_TRUE(absl::StrContains(refused.error_message(), "not a serial port"))
      << refused.error_message();
  unlink(pattern);
}

}  // namespace
}  // namespace labgate::serial
