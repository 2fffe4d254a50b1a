// The embedding API: CreateSerialService with an injected clock and port factory,
// served in-process through ServiceHost (real gRPC serialization, no sockets).
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "common/service_host.h"
#include "serial-service/backends/loopback_port.h"
#include "serial-service/serial_metrics.h"
#include "serial-service/serial_service.h"
#include "serial-service/tests/serial_test_client.h"
#include "serial-service/tests/test_util.h"

namespace labgate::serial {
namespace {

using testing::FakeClock;
using testing::SerialClient;

// A backend whose Open fails the way a device without permission does.
class ForbiddenPort : public LoopbackPort {
 public:
  absl::Status Open() override {
    return absl::PermissionDeniedError("permission denied: /dev/forbidden");
  }
};

class InProcessServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SerialServiceOptions options;
    options.clock = &clock_;
    options.port_factory = [](const std::string& name) -> std::unique_ptr<SerialPort> {
      if (name == "/dev/forbidden") return std::make_unique<ForbiddenPort>();
      return DefaultPortFactory(name);
    };
    auto service = CreateSerialService(options);
    ASSERT_TRUE(service.ok()) << service.status();
    service_ = std::move(*service);
    auto host = ServiceHost::Start("", {service_.get()});
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = std::move(*host);
    client_ = std::make_unique<SerialClient>(host_->InProcessChannel(), "alice");
  }
  void TearDown() override {
    service_->Shutdown();
    host_->Shutdown(std::chrono::seconds(2));
  }

  FakeClock clock_;
  std::unique_ptr<SerialGrpcService> service_;
  std::unique_ptr<ServiceHost> host_;
  std::unique_ptr<SerialClient> client_;
};

TEST_F(InProcessServiceTest, RejectsBadOptions) {
  SerialServiceOptions options;
  options.poll_period_ms = 0;
  EXPECT_EQ(CreateSerialService(options).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(InProcessServiceTest, RejectsANegativeQueryReplySpin) {
  SerialServiceOptions options;
  options.query_reply_spin = std::chrono::microseconds(-1);
  absl::StatusOr<std::unique_ptr<SerialGrpcService>> created = CreateSerialService(options);
  EXPECT_EQ(created.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(created.status().message(), "query_reply_spin"));
}

TEST_F(InProcessServiceTest, RejectsACaptureBufferOrCoalescingOutOfRangeNamingTheFlag) {
  SerialServiceOptions tiny;
  tiny.capture.buffer_bytes = 10;
  absl::StatusOr<std::unique_ptr<SerialGrpcService>> refused = CreateSerialService(tiny);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(refused.status().message(), "--capture-buffer-bytes"))
      << refused.status();
  SerialServiceOptions slow;
  slow.capture.record_coalesce_ms = 10001;
  refused = CreateSerialService(slow);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(refused.status().message(), "--record-coalesce-ms"))
      << refused.status();
  SerialServiceOptions bounds;
  bounds.capture.buffer_bytes = 64;
  bounds.capture.record_coalesce_ms = 0;
  EXPECT_TRUE(CreateSerialService(bounds).ok()) << "the bounds themselves are allowed";
}

TEST_F(InProcessServiceTest, PermissionDeniedComesThrough) {
  grpc::Status status = client_->Open("/dev/forbidden", 9600);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_TRUE(absl::StrContains(status.error_message(), "/dev/forbidden"));
  v1::GetStatusResponse port;
  ASSERT_TRUE(client_->Status("/dev/forbidden", &port).ok());
  EXPECT_EQ(port.status(), v1::PORT_STATE_CLOSED);
}

TEST_F(InProcessServiceTest, IdleAutoCloseWithTheInjectedClock) {
  v1::OpenPortRequest request;
  request.set_port_name("loop://idle");
  request.set_baud_rate(9600);
  request.set_idle_disconnect_ms(60000);
  ASSERT_TRUE(client_->Open(request).ok());
  clock_.Advance(59999);
  v1::ReadResponse read;
  ASSERT_TRUE(client_->Read("", 0, &read).ok());
  EXPECT_FALSE(read.has_event());
  EXPECT_TRUE(read.timed_out());
  clock_.Advance(1);
  ASSERT_TRUE(client_->Read("", 0, &read).ok());
  EXPECT_EQ(read.event(), "auto_close");
  EXPECT_EQ(read.reason(), "idle_timeout");
  EXPECT_EQ(read.idle_ms(), 60000);
  EXPECT_EQ(read.idle_close_count(), 1);
  v1::GetMetricsResponse metrics;
  ASSERT_TRUE(client_->Metrics("loop://idle", &metrics).ok());
  EXPECT_EQ(metrics.state(), v1::PORT_STATE_CLOSED);
  EXPECT_EQ(metrics.idle_close_count(), 1);
  ASSERT_TRUE(client_->Open(request).ok());
}

// The service's metric families follow what its ports do (the process-wide registry, so
// the figures are read as differences).
TEST_F(InProcessServiceTest, MetricsFollowOpensClosesBytesTimeoutsAndAutoCloses) {
  SerialMetrics& m = SerialMetrics::Get();
  const double open = m.open_ports.Get().value();
  const uint64_t tx = m.bytes.With({"tx"}).value();
  const uint64_t rx = m.bytes.With({"rx"}).value();
  const uint64_t timeouts = m.read_timeouts.Get().value();
  const uint64_t auto_closes = m.auto_closes.Get().value();
  ASSERT_TRUE(client_->Open("loop://m1", 9600).ok());
  EXPECT_EQ(m.open_ports.Get().value(), open + 1);
  v1::OpenPortRequest idle;
  idle.set_port_name("loop://m2");
  idle.set_baud_rate(9600);
  idle.set_idle_disconnect_ms(1000);
  ASSERT_TRUE(client_->Open(idle).ok());
  EXPECT_EQ(m.open_ports.Get().value(), open + 2);

  ASSERT_TRUE(client_->Write("loop://m1", "abcd").ok());
  v1::ReadResponse read;
  ASSERT_TRUE(client_->Read("loop://m1", 100, &read).ok());
  EXPECT_EQ(read.data(), "abcd");
  EXPECT_EQ(m.bytes.With({"tx"}).value(), tx + 4);
  EXPECT_EQ(m.bytes.With({"rx"}).value(), rx + 4);
  ASSERT_TRUE(client_->Read("loop://m1", 0, &read).ok());
  EXPECT_TRUE(read.timed_out());
  EXPECT_EQ(m.read_timeouts.Get().value(), timeouts + 1);

  clock_.Advance(1000);
  ASSERT_TRUE(client_->Read("loop://m2", 0, &read).ok());
  EXPECT_EQ(read.event(), "auto_close");
  EXPECT_EQ(m.auto_closes.Get().value(), auto_closes + 1);
  EXPECT_EQ(m.open_ports.Get().value(), open + 1);
  ASSERT_TRUE(client_->Close("loop://m1").ok());
  EXPECT_EQ(m.open_ports.Get().value(), open);
}

TEST_F(InProcessServiceTest, ValidationErrorsNameTheField) {
  v1::OpenPortRequest request;
  request.set_port_name("loop://");
  request.set_baud_rate(9600);
  request.set_stop_bits(static_cast<v1::StopBits>(3));
  grpc::Status status = client_->Open(request);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(absl::StrContains(status.error_message(), "stop_bits must be one of one, two"));
  request.clear_stop_bits();
  request.set_baud_rate(0);
  status = client_->Open(request);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(absl::StrContains(status.error_message(), "baud_rate is required"));
  ASSERT_TRUE(client_->Open("loop://", 9600).ok());
  grpc::Status bad_hex = client_->Write("", "zz", v1::ENCODING_HEX);
  EXPECT_EQ(bad_hex.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  v1::ReadResponse read;
  grpc::Status bad_timeout = client_->Read("", -1, &read);
  EXPECT_EQ(bad_timeout.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(absl::StrContains(bad_timeout.error_message(), "timeout_ms"));
}

TEST_F(InProcessServiceTest, CallsWithoutOwnerMetadataShareTheDefaultOwner) {
  SerialClient anonymous(host_->InProcessChannel(), "");
  SerialClient also_anonymous(host_->InProcessChannel(), "");
  ASSERT_TRUE(anonymous.Open("loop://shared", 9600).ok());
  ASSERT_TRUE(also_anonymous.Write("loop://shared", "eA==", v1::ENCODING_BASE64).ok());
  EXPECT_EQ(client_->Write("loop://shared", "x").error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
}

// A caller that gives up on a long read (here its deadline passes) frees the port: the
// read stops instead of holding the port's worker for its whole timeout, so the next
// write gets through well within its own deadline and the data is not swallowed.
TEST_F(InProcessServiceTest, AnAbandonedReadFreesItsPort) {
  ASSERT_TRUE(client_->Open("loop://slow", 9600).ok());
  v1::ReadRequest request;
  request.set_port_name("loop://slow");
  request.set_timeout_ms(60000);
  v1::ReadResponse abandoned;
  grpc::Status gave_up = client_->stub()->Read(
      client_->Context(std::chrono::milliseconds(200)).get(), request, &abandoned);
  EXPECT_EQ(gave_up.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  v1::WriteRequest write;
  write.set_port_name("loop://slow");
  write.set_data("after");
  v1::WriteResponse wrote;
  ASSERT_TRUE(
      client_->stub()->Write(client_->Context(std::chrono::seconds(10)).get(), write, &wrote).ok());
  v1::ReadResponse read;
  ASSERT_TRUE(client_->Read("loop://slow", 1000, &read).ok());
  EXPECT_EQ(read.data(), "after");
}

// A subscriber that does not read: its queue stays bounded, data chunks are dropped
// and counted, and nothing else (the writer, Read) is held up.
TEST(SubscribeFlowControlTest, ASlowSubscriberLosesChunksNotTheService) {
  SerialServiceOptions options;
  options.subscriber_queue_limit = 4;
  auto service = CreateSerialService(options);
  ASSERT_TRUE(service.ok());
  auto host = ServiceHost::Start("", {service->get()});
  ASSERT_TRUE(host.ok());
  SerialClient client((*host)->InProcessChannel(), "alice");
  ASSERT_TRUE(client.Open("loop://flood", 9600).ok());

  grpc::ClientContext subscribe_context;
  // A lost report would leave the drain below waiting: end it rather than hang.
  subscribe_context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(40));
  v1::SubscribeRequest subscribe;
  subscribe.set_port_name("loop://flood");
  subscribe.set_encoding(v1::ENCODING_BASE64);
  auto events = client.stub()->Subscribe(&subscribe_context, subscribe);
  v1::PortEvent event;
  ASSERT_TRUE(events->Read(&event));  // current state; then stop reading for a while

  const std::string chunk(60000, 'z');
  int64_t sent = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 200; ++i) {
    ASSERT_TRUE(client.Write("", chunk).ok());
    sent += static_cast<int64_t>(chunk.size());
    v1::ReadResponse read;  // Read still gets every byte
    int64_t got = 0;
    while (got < static_cast<int64_t>(chunk.size())) {
      ASSERT_TRUE(client.Read("", 1000, &read, v1::ENCODING_TEXT, 65536).ok());
      ASSERT_FALSE(read.timed_out());
      got += read.bytes_read();
    }
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));

  // One more byte, polled while the stream is still full, so that it is dropped too: the
  // loss must still be reported once the subscriber catches up, with no later chunk.
  ASSERT_TRUE(client.Write("", "!").ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  int64_t streamed = 0;
  int64_t dropped = 0;
  while (streamed + dropped < sent + 1 && events->Read(&event)) {
    if (event.type() != v1::PortEvent::TYPE_DATA) continue;
    std::string bytes;
    ASSERT_TRUE(absl::Base64Unescape(event.data(), &bytes));
    streamed += static_cast<int64_t>(bytes.size());
    dropped += event.dropped_bytes();
  }
  EXPECT_EQ(streamed + dropped, sent + 1);
  EXPECT_GT(dropped, 0);
  subscribe_context.TryCancel();
  while (events->Read(&event)) {
  }
  events->Finish().IgnoreError();
  (*service)->Shutdown();
  (*host)->Shutdown(std::chrono::seconds(2));
}

TEST_F(InProcessServiceTest, StatusNamesTheOwnerOfAnOpenPortAndNoPolicyWithoutOne) {
  v1::GetStatusResponse status;
  ASSERT_TRUE(client_->Status("loop://owned", &status).ok());
  EXPECT_EQ(status.owner(), "") << "closed: nobody holds it";
  ASSERT_TRUE(client_->Open("loop://owned", 9600).ok());
  SerialClient bob(host_->InProcessChannel(), "bob");
  ASSERT_TRUE(bob.Status("loop://owned", &status).ok());
  EXPECT_EQ(status.owner(), "alice");
  EXPECT_FALSE(status.owned_by_caller());
  EXPECT_FALSE(status.has_policy());
  ASSERT_TRUE(client_->Close("loop://owned").ok());
  ASSERT_TRUE(bob.Status("loop://owned", &status).ok());
  EXPECT_EQ(status.owner(), "");
}

// A subscriber that asks for writes sees them (with their bytes) beside what the port
// receives; one that does not ask sees only what is received.
TEST_F(InProcessServiceTest, SubscribersThatAskSeeWhatIsWritten) {
  ASSERT_TRUE(client_->Open("loop://tx", 9600).ok());
  auto subscribe = [this](bool include_writes, grpc::ClientContext* context) {
    v1::SubscribeRequest request;
    request.set_port_name("loop://tx");
    request.set_include_writes(include_writes);
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
    return client_->stub()->Subscribe(context, request);
  };
  grpc::ClientContext with_context, without_context;
  auto with = subscribe(true, &with_context);
  auto without = subscribe(false, &without_context);
  v1::PortEvent event;
  ASSERT_TRUE(with->Read(&event));
  EXPECT_EQ(event.type(), v1::PortEvent::TYPE_OPENED);
  ASSERT_TRUE(without->Read(&event));
  EXPECT_EQ(event.type(), v1::PortEvent::TYPE_OPENED);

  // Both streams are registered once their first event arrived, so nothing below is missed.
  ASSERT_TRUE(client_->Write("", "ping").ok());
  std::string written, received;
  while (received.size() < 4 && with->Read(&event)) {
    if (event.type() == v1::PortEvent::TYPE_WRITTEN) written += event.data();
    if (event.type() == v1::PortEvent::TYPE_DATA) received += event.data();
  }
  EXPECT_EQ(written, "ping");
  EXPECT_EQ(received, "ping");
  received.clear();
  while (received.size() < 4 && without->Read(&event)) {
    EXPECT_NE(event.type(), v1::PortEvent::TYPE_WRITTEN);
    if (event.type() == v1::PortEvent::TYPE_DATA) received += event.data();
  }
  EXPECT_EQ(received, "ping");
  with_context.TryCancel();
  without_context.TryCancel();
  while (with->Read(&event)) {
  }
  while (without->Read(&event)) {
  }
  with->Finish().IgnoreError();
  without->Finish().IgnoreError();
}

// A states-only subscriber gets the port's state changes and none of its traffic; what
// arrives is still there for Read.
TEST_F(InProcessServiceTest, AStatesOnlySubscriberSeesNoTraffic) {
  ASSERT_TRUE(client_->Open("loop://states", 9600).ok());
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  v1::SubscribeRequest request;
  request.set_port_name("loop://states");
  request.set_states_only(true);
  request.set_include_writes(true);  // states_only wins
  auto stream = client_->stub()->Subscribe(&context, request);
  v1::PortEvent event;
  ASSERT_TRUE(stream->Read(&event));
  EXPECT_EQ(event.type(), v1::PortEvent::TYPE_OPENED);

  ASSERT_TRUE(client_->Write("loop://states", "ping").ok());
  std::string got;
  for (int attempt = 0; attempt < 50 && got.size() < 4; ++attempt) {
    v1::ReadResponse read;
    ASSERT_TRUE(client_->Read("loop://states", 100, &read).ok());
    got += read.data();
  }
  EXPECT_EQ(got, "ping");
  ASSERT_TRUE(client_->Close("loop://states").ok());
  // The write and the data received come before the close, and are not on the stream.
  ASSERT_TRUE(stream->Read(&event));
  EXPECT_EQ(event.type(), v1::PortEvent::TYPE_CLOSED) << event.DebugString();
  context.TryCancel();
  while (stream->Read(&event)) {
  }
  stream->Finish().IgnoreError();
}

TEST_F(InProcessServiceTest, ShutdownEndsStreamsAndRefusesCalls) {
  grpc::ClientContext subscribe_context;
  v1::SubscribeRequest subscribe;
  subscribe.set_port_name("loop://");
  auto events = client_->stub()->Subscribe(&subscribe_context, subscribe);
  v1::PortEvent event;
  ASSERT_TRUE(events->Read(&event));
  EXPECT_EQ(event.type(), v1::PortEvent::TYPE_CLOSED);
  auto lease_context = client_->Context();
  auto lease = client_->stub()->Lease(lease_context.get(), v1::LeaseRequest());
  v1::LeaseEvent held;
  ASSERT_TRUE(lease->Read(&held));
  EXPECT_EQ(held.owner(), "alice");
  ASSERT_TRUE(client_->Open("loop://", 9600).ok());
  ASSERT_TRUE(events->Read(&event));
  EXPECT_EQ(event.type(), v1::PortEvent::TYPE_OPENED);

  service_->Shutdown();
  bool saw_closed = false;
  while (events->Read(&event)) saw_closed |= event.type() == v1::PortEvent::TYPE_CLOSED;
  EXPECT_TRUE(saw_closed);
  EXPECT_TRUE(events->Finish().ok());
  EXPECT_FALSE(lease->Read(&held));
  EXPECT_TRUE(lease->Finish().ok());
  grpc::Status refused = client_->Open("loop://", 9600);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::UNAVAILABLE);
}

}  // namespace
}  // namespace labgate::serial
