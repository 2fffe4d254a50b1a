// gRPC straight from a C++ client against the real labgate-serial binary, run as a
// child process (inside the harness's mount namespace, so it can open the pty).
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <fstream>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "serial-service/tests/serial_test_client.h"
#include "tests/serial_harness/pty_device.h"

#ifndef LABGATE_SERIAL_BINARY
#error "LABGATE_SERIAL_BINARY must name the labgate-serial binary"
#endif

extern char** environ;

namespace labgate::serial {
namespace {

using serial_harness::InstrumentMode;
using serial_harness::kInstrumentId;
using serial_harness::PtyDevice;
using testing::SerialClient;

// Collects a Subscribe stream's events on a thread of its own.
class EventCollector {
 public:
  EventCollector(v1::SerialService::Stub* stub, const std::string& port_name,
                 v1::Encoding encoding = v1::ENCODING_TEXT) {
    v1::SubscribeRequest request;
    request.set_port_name(port_name);
    request.set_encoding(encoding);
    reader_ = stub->Subscribe(&context_, request);
    thread_ = std::thread([this] {
      v1::PortEvent event;
      while (reader_->Read(&event)) {
        std::lock_guard<std::mutex> lock(mu_);
        events_.push_back(event);
        changed_.notify_all();
      }
      grpc::Status status = reader_->Finish();
      std::lock_guard<std::mutex> lock(mu_);
      finished_ = true;
      final_status_ = status;
      changed_.notify_all();
    });
  }
  ~EventCollector() {
    context_.TryCancel();
    thread_.join();
  }

  // Waits until an event of `type` arrived (after the first `skip` events).
  bool WaitFor(v1::PortEvent::Type type, v1::PortEvent* out = nullptr,
               std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    std::unique_lock<std::mutex> lock(mu_);
    return changed_.wait_for(lock, timeout, [&] {
      for (const auto& event : events_) {
        if (event.type() == type) {
          if (out != nullptr) *out = event;
          return true;
        }
      }
      return false;
    });
  }
  std::string Data() {
    std::lock_guard<std::mutex> lock(mu_);
    std::string data;
    for (const auto& event : events_) {
      if (event.type() == v1::PortEvent::TYPE_DATA) data += event.data();
    }
    return data;
  }
  bool WaitForData(const std::string& expected,
                   std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (absl::StrContains(Data(), expected)) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }
  void Clear() {
    std::lock_guard<std::mutex> lock(mu_);
    events_.clear();
  }
  bool WaitFinished(grpc::Status* status, std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    if (!changed_.wait_for(lock, timeout, [&] { return finished_; })) return false;
    *status = final_status_;
    return true;
  }

 private:
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReader<v1::PortEvent>> reader_;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::vector<v1::PortEvent> events_;
  bool finished_ = false;
  grpc::Status final_status_;
};

class ChildProcessGrpcTest : public ::testing::Test {
 protected:
  void SetUp() override {
    port_file_ =
        absl::StrCat(::testing::TempDir(), "labgate-serial-", getpid(), "-", counter_++, ".port");
    unlink(port_file_.c_str());
    // Direct callers are known by their tokens: each acts as itself, never for another.
    token_file_ = port_file_ + ".tokens";
    {
      std::ofstream tokens(token_file_);
      for (const char* name : {"alice", "bob", "conn-7"}) {
        tokens << name << " " << TokenOf(name) << "\n";
      }
    }
    std::vector<std::string> args = {
        LABGATE_SERIAL_BINARY, "--listen", "127.0.0.1:0",         "--port-file", port_file_,
        "--log-level",         "warning",  "--client-token-file", token_file_};
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    ASSERT_EQ(posix_spawn(&pid_, argv[0], nullptr, nullptr, argv.data(), environ), 0)
        << "cannot start " << LABGATE_SERIAL_BINARY;
    int port = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    while (port == 0 && std::chrono::steady_clock::now() < deadline) {
      std::ifstream in(port_file_);
      std::string text;
      if (in >> text && !absl::SimpleAtoi(text, &port)) port = 0;
      if (port == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_NE(port, 0) << "labgate-serial did not write " << port_file_;
    channel_ =
        grpc::CreateChannel(absl::StrCat("127.0.0.1:", port), grpc::InsecureChannelCredentials());
    ASSERT_TRUE(
        channel_->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(10)));
    alice_ = std::make_unique<SerialClient>(channel_, "alice", TokenOf("alice"));
    bob_ = std::make_unique<SerialClient>(channel_, "bob", TokenOf("bob"));
  }

  static std::string TokenOf(const std::string& name) { return name + "-secret-token"; }

  void TearDown() override {
    if (pid_ <= 0) return;
    alice_.reset();
    bob_.reset();
    channel_.reset();
    kill(pid_, SIGTERM);
    int status = 0;
    pid_t done = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    while ((done = waitpid(pid_, &status, WNOHANG)) == 0 &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (done == 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      ADD_FAILURE() << "labgate-serial did not exit within 15 s of SIGTERM";
    } else {
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
          << "labgate-serial exit status " << status;
    }
    unlink(port_file_.c_str());
    unlink(token_file_.c_str());
  }

  // grpc.health.v1.Health/Check through a generic stub: the request is field 1
  // (service name), the answer's field 1 is the status (1 = SERVING).
  int HealthStatus(const std::string& service) {
    grpc::GenericStub generic(channel_);
    std::string request_bytes;
    if (!service.empty()) {
      request_bytes =
          absl::StrCat("\x0a", std::string(1, static_cast<char>(service.size())), service);
    }
    grpc::Slice slice(request_bytes);
    grpc::ByteBuffer request(&slice, 1);
    grpc::ByteBuffer response;
    grpc::ClientContext context;
    std::promise<grpc::Status> done;
    generic.UnaryCall(&context, "/grpc.health.v1.Health/Check", grpc::StubOptions(), &request,
                      &response, [&done](grpc::Status status) { done.set_value(status); });
    grpc::Status status = done.get_future().get();
    if (!status.ok()) return -1;
    std::vector<grpc::Slice> slices;
    if (!response.Dump(&slices).ok()) return -1;
    std::string bytes;
    for (const grpc::Slice& part : slices) {
      bytes.append(reinterpret_cast<const char*>(part.begin()), part.size());
    }
    return bytes.size() == 2 && bytes[0] == '\x08' ? bytes[1] : 0;
  }

  bool WaitClosed(SerialClient& client, const std::string& port) {
    for (int i = 0; i < 300; ++i) {
      v1::GetStatusResponse status;
      if (client.Status(port, &status).ok() && status.status() == v1::PORT_STATE_CLOSED) {
        return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

  static inline int counter_ = 0;
  std::string port_file_;
  std::string token_file_;
  pid_t pid_ = 0;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<SerialClient> alice_;
  std::unique_ptr<SerialClient> bob_;
};

TEST_F(ChildProcessGrpcTest, HealthIsServing) {
  EXPECT_EQ(HealthStatus(""), 1);
  EXPECT_EQ(HealthStatus("labgate.serial.v1.SerialService"), 1);
}

TEST_F(ChildProcessGrpcTest, LoopbackRoundTripWithSubscribe) {
  EventCollector events(alice_->stub(), "loop://demo");
  ASSERT_TRUE(events.WaitFor(v1::PortEvent::TYPE_CLOSED));  // the current state comes first
  events.Clear();
  v1::OpenPortResponse opened;
  v1::OpenPortRequest request;
  request.set_port_name("loop://demo");
  request.set_baud_rate(9600);
  request.set_terminator("\n");
  ASSERT_TRUE(alice_->Open(request, &opened).ok());
  EXPECT_EQ(opened.status(), "opened");
  ASSERT_TRUE(events.WaitFor(v1::PortEvent::TYPE_OPENED));

  v1::WriteResponse wrote;
  ASSERT_TRUE(alice_->Write("", "hello", v1::ENCODING_TEXT, &wrote).ok());
  EXPECT_EQ(wrote.bytes_written(), 6);
  EXPECT_EQ(wrote.bytes_written_total(), 6);
  EXPECT_TRUE(events.WaitForData("hello\n")) << events.Data();
  // Subscribers get a copy; Read still gets the bytes.
  v1::ReadResponse read;
  ASSERT_TRUE(alice_->Read("", 1000, &read).ok());
  EXPECT_EQ(read.data(), "hello");
  EXPECT_EQ(read.bytes_read(), 5);
  EXPECT_EQ(read.bytes_read_total(), 6);

  v1::GetMetricsResponse metrics;
  ASSERT_TRUE(alice_->Metrics("", &metrics).ok());
  EXPECT_EQ(metrics.state(), v1::PORT_STATE_OPEN);
  EXPECT_EQ(metrics.bytes_written_total(), 6);
  EXPECT_EQ(metrics.bytes_read_total(), 6);

  v1::ClosePortResponse closed;
  ASSERT_TRUE(alice_->Close("", &closed).ok());
  EXPECT_EQ(closed.status(), "closed");
  ASSERT_TRUE(alice_->Close("loop://demo", &closed).ok());
  EXPECT_EQ(closed.status(), "already closed");
  v1::PortEvent closed_event;
  ASSERT_TRUE(events.WaitFor(v1::PortEvent::TYPE_CLOSED, &closed_event));
  EXPECT_EQ(closed_event.port_name(), "loop://demo");
}

TEST_F(ChildProcessGrpcTest, PortSelectionWithoutANameListsTheOpenPorts) {
  ASSERT_TRUE(alice_->Open("loop://one", 9600).ok());
  ASSERT_TRUE(alice_->Write("", "x").ok());  // the only port: name may be left out
  ASSERT_TRUE(alice_->Open("loop://two", 9600).ok());
  grpc::Status ambiguous = alice_->Write("", "x");
  EXPECT_EQ(ambiguous.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(absl::StrContains(ambiguous.error_message(), "loop://one, loop://two"))
      << ambiguous.error_message();
  v1::GetStatusResponse status;
  ASSERT_TRUE(bob_->Status("", &status).ok());
  EXPECT_EQ(status.status(), v1::PORT_STATE_CLOSED);
  EXPECT_EQ(status.open_ports_size(), 2);
}

TEST_F(ChildProcessGrpcTest, LeaseEndingClosesTheOwnersPorts) {
  SerialClient carol(channel_, "conn-7", TokenOf("conn-7"));
  auto lease_context = carol.Context(std::chrono::minutes(5));
  auto lease = carol.stub()->Lease(lease_context.get(), v1::LeaseRequest());
  v1::LeaseEvent held;
  ASSERT_TRUE(lease->Read(&held));
  EXPECT_EQ(held.owner(), "conn-7");
  ASSERT_TRUE(carol.Open("loop://lease-a", 9600).ok());
  ASSERT_TRUE(carol.Open("loop://lease-b", 9600).ok());
  ASSERT_TRUE(alice_->Open("loop://alice", 9600).ok());
  grpc::Status refused = alice_->Write("loop://lease-a", "x");
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(refused.error_message(),
            "port loop://lease-a is in use by another client (held by conn-7)");

  lease_context->TryCancel();
  v1::LeaseEvent ignored;
  while (lease->Read(&ignored)) {
  }
  lease->Finish().IgnoreError();
  EXPECT_TRUE(WaitClosed(*alice_, "loop://lease-a"));
  EXPECT_TRUE(WaitClosed(*alice_, "loop://lease-b"));
  v1::GetStatusResponse status;
  ASSERT_TRUE(alice_->Status("loop://alice", &status).ok());
  EXPECT_EQ(status.status(), v1::PORT_STATE_OPEN);

  // ReleaseOwner closes at once and names what it closed.
  v1::ReleaseOwnerResponse released;
  auto context = alice_->Context();
  ASSERT_TRUE(
      alice_->stub()->ReleaseOwner(context.get(), v1::ReleaseOwnerRequest(), &released).ok());
  ASSERT_EQ(released.closed_ports_size(), 1);
  EXPECT_EQ(released.closed_ports(0), "loop://alice");
  EXPECT_TRUE(WaitClosed(*alice_, "loop://alice"));
}

TEST_F(ChildProcessGrpcTest, PtyDeviceThroughTheStandaloneBinary) {
  auto device = PtyDevice::Create(InstrumentMode::kScpi);
  ASSERT_TRUE(device.ok()) << "pty harness: " << device.status();
  const std::string path = (*device)->path();
  ASSERT_TRUE(alice_->Open(path, 115200, "\n").ok());
  EventCollector events(alice_->stub(), path);
  ASSERT_TRUE(events.WaitFor(v1::PortEvent::TYPE_OPENED));
  ASSERT_TRUE(alice_->Write("", "*IDN?").ok());
  v1::ReadResponse read;
  ASSERT_TRUE(alice_->Read("", 2000, &read).ok());
  EXPECT_EQ(read.data(), kInstrumentId);
  EXPECT_TRUE(events.WaitForData(absl::StrCat(kInstrumentId, "\n")));

  grpc::Status other = bob_->Write(path, "*IDN?");
  EXPECT_EQ(other.error_code(), grpc::StatusCode::FAILED_PRECONDITION);

  (*device)->Disconnect();
  v1::PortEvent error;
  ASSERT_TRUE(events.WaitFor(v1::PortEvent::TYPE_ERROR, &error));
  EXPECT_EQ(error.reason(), "device disconnected");
  grpc::Status lost = alice_->Read("", 200, &read);
  EXPECT_EQ(lost.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_TRUE(absl::StrContains(lost.error_message(), "device disconnected"));

  ASSERT_TRUE((*device)->Reconnect().ok());
  ASSERT_TRUE(alice_->Open(path, 115200, "\n").ok());
  ASSERT_TRUE(alice_->Write("", "*IDN?").ok());
  ASSERT_TRUE(alice_->Read("", 2000, &read).ok());
  EXPECT_EQ(read.data(), kInstrumentId);
}

TEST_F(ChildProcessGrpcTest, SubscribeStreamsEndWhenTheServiceStops) {
  EventCollector events(alice_->stub(), "loop://x");
  ASSERT_TRUE(events.WaitFor(v1::PortEvent::TYPE_CLOSED));
  SerialClient anonymous(channel_, "");
  auto lease_context = anonymous.Context(std::chrono::minutes(5));
  auto lease = anonymous.stub()->Lease(lease_context.get(), v1::LeaseRequest());
  v1::LeaseEvent held;
  ASSERT_TRUE(lease->Read(&held));
  EXPECT_EQ(held.owner(), "anonymous");
  kill(pid_, SIGTERM);
  grpc::Status status;
  ASSERT_TRUE(events.WaitFinished(&status, std::chrono::seconds(10)))
      << "the Subscribe stream did not end on SIGTERM";
  EXPECT_FALSE(lease->Read(&held));
  lease->Finish().IgnoreError();
}

}  // namespace
}  // namespace labgate::serial
