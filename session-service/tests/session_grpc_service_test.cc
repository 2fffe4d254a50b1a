// The gRPC adapter on an in-process server, as the gateway embeds it: status codes,
// field mapping, WatchSession streaming, shutdown with streams open, and import_session.
#include <grpcpp/grpcpp.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <thread>
#include <vector>

#include "common/service_host.h"
#include "gtest/gtest.h"
#include "session-service/session_service.h"

namespace labgate::session {
namespace {

namespace pb = ::labgate::session::v1;

class SessionGrpcServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "labgate-session-grpc-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    data_dir_ = pattern;
    auto service = CreateSessionService({data_dir_});
    ASSERT_TRUE(service.ok()) << service.status();
    service_ = std::move(*service);
    auto host = ServiceHost::Start("", {service_.get()});
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = std::move(*host);
    stub_ = pb::SessionService::NewStub(host_->InProcessChannel());
  }
  void TearDown() override {
    if (service_) service_->FinishWatchStreams();
    if (host_) host_->Shutdown(std::chrono::seconds(5));
    if (service_) service_->Shutdown();
    std::error_code ignored;
    std::filesystem::remove_all(data_dir_, ignored);
  }

  pb::Session Create(const std::string& device) {
    grpc::ClientContext context;
    pb::CreateSessionRequest request;
    request.set_device_id(device);
    pb::CreateSessionResponse response;
    grpc::Status status = stub_->CreateSession(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.session();
  }

  grpc::Status Append(const std::string& session_id, const std::string& content,
                      pb::AppendMessageResponse* response) {
    grpc::ClientContext context;
    pb::AppendMessageRequest request;
    request.set_session_id(session_id);
    request.set_content(content);
    return stub_->AppendMessage(&context, request, response);
  }

  pb::SessionExport Recorded() {
    pb::SessionExport exported;
    exported.mutable_session()->set_id("from-another-lab");
    exported.mutable_session()->set_device_id("psu-2");
    exported.mutable_session()->set_port_name("/dev/ttyUSB0");
    auto add = [&](const char* direction, const char* content, const char* occurred_at) {
      pb::Message* message = exported.add_messages();
      message->set_message_id(exported.messages_size());
      message->set_role("device");
      message->set_direction(direction);
      message->set_features("serial,/dev/ttyUSB0");
      message->set_content(content);
      message->set_created_at("2026-11-20T08:00:05.000Z");
      if (occurred_at != nullptr) message->set_occurred_at(occurred_at);
    };
    add("tx", "*IDN?\n", "2026-11-20T08:00:00.100Z");
    add("rx", "ACME,PSU,1\n", "2026-11-20T08:00:00.130Z");
    add("event", "closed", nullptr);
    exported.mutable_messages(1)->set_latency_ms(30);
    return exported;
  }

  grpc::Status Import(const pb::SessionExport& exported, pb::ImportSessionResponse* response) {
    grpc::ClientContext context;
    pb::ImportSessionRequest request;
    *request.mutable_export_() = exported;
    return stub_->ImportSession(&context, request, response);
  }

  std::vector<pb::Message> Messages(const std::string& session_id) {
    grpc::ClientContext context;
    pb::ListMessagesRequest request;
    request.set_session_id(session_id);
    pb::ListMessagesResponse response;
    EXPECT_TRUE(stub_->ListMessages(&context, request, &response).ok());
    return {response.messages().begin(), response.messages().end()};
  }

  std::string data_dir_;
  std::unique_ptr<SessionGrpcService> service_;
  std::unique_ptr<ServiceHost> host_;
  std::unique_ptr<pb::SessionService::Stub> stub_;
};

TEST_F(SessionGrpcServiceTest, StoreErrorsMapToGrpcCodes) {
  pb::AppendMessageResponse response;
  grpc::Status unknown = Append("missing", "x", &response);
  EXPECT_EQ(unknown.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(unknown.error_message(), "session 'missing' not found");

  EXPECT_EQ(Append("", "x", &response).error_code(), grpc::StatusCode::INVALID_ARGUMENT);

  pb::Session session = Create("d");
  grpc::ClientContext context;
  pb::CloseSessionRequest close;
  close.set_session_id(session.id());
  pb::CloseSessionResponse closed;
  ASSERT_TRUE(stub_->CloseSession(&context, close, &closed).ok());
  EXPECT_TRUE(closed.session().closed());
  EXPECT_EQ(Append(session.id(), "x", &response).error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
}

TEST_F(SessionGrpcServiceTest, OptionalFieldsStayAbsentUnlessGiven) {
  pb::Session session = Create("d");
  pb::AppendMessageResponse plain;
  ASSERT_TRUE(Append(session.id(), "x", &plain).ok());
  EXPECT_EQ(plain.message_id(), 1);
  EXPECT_EQ(plain.role(), "tool");
  EXPECT_FALSE(plain.has_direction());
  EXPECT_FALSE(plain.has_features());
  EXPECT_FALSE(plain.has_latency_ms());

  grpc::ClientContext context;
  pb::AppendMessageRequest request;
  request.set_session_id(session.id());
  request.set_content("y");
  request.set_direction("rx");
  request.set_features("A b");
  request.set_latency_ms(0);
  pb::AppendMessageResponse full;
  ASSERT_TRUE(stub_->AppendMessage(&context, request, &full).ok());
  EXPECT_EQ(full.message_id(), 2);
  EXPECT_EQ(full.direction(), "rx");
  EXPECT_EQ(full.features(), "a,b");
  ASSERT_TRUE(full.has_latency_ms());
  EXPECT_EQ(full.latency_ms(), 0);
}

TEST_F(SessionGrpcServiceTest, WatchStreamsCommittedEvents) {
  pb::Session session = Create("d");
  grpc::ClientContext context;
  pb::WatchSessionRequest request;
  request.set_session_id(session.id());
  auto reader = stub_->WatchSession(&context, request);
  reader->WaitForInitialMetadata();  // sent once the subscription is live

  pb::AppendMessageResponse appended;
  ASSERT_TRUE(Append(session.id(), "hello", &appended).ok());
  pb::SessionEvent event;
  ASSERT_TRUE(reader->Read(&event));
  EXPECT_EQ(event.type(), pb::SessionEvent::TYPE_APPENDED);
  EXPECT_EQ(event.session().id(), session.id());
  EXPECT_EQ(event.message().message_id(), 1);
  EXPECT_EQ(event.message().content(), "hello");

  context.TryCancel();
  EXPECT_FALSE(reader->Read(&event));
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::CANCELLED);
}

TEST_F(SessionGrpcServiceTest, WatchingAnUnknownSessionIsNotFound) {
  grpc::ClientContext context;
  pb::WatchSessionRequest request;
  request.set_session_id("nope");
  auto reader = stub_->WatchSession(&context, request);
  pb::SessionEvent event;
  EXPECT_FALSE(reader->Read(&event));
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::NOT_FOUND);
}

TEST_F(SessionGrpcServiceTest, ShutdownFinishesOpenWatchStreams) {
  grpc::ClientContext context;
  auto reader = stub_->WatchSession(&context, pb::WatchSessionRequest());
  reader->WaitForInitialMetadata();

  auto started = std::chrono::steady_clock::now();
  service_->FinishWatchStreams();
  pb::SessionEvent event;
  EXPECT_FALSE(reader->Read(&event));
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::UNAVAILABLE);
  host_->Shutdown(std::chrono::seconds(5));
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(3));

  // New watches are refused while unary calls still work until Shutdown().
  service_->Shutdown();
  std::promise<absl::StatusOr<SessionRecord>> late;
  service_->store().CreateSession(
      {"d", ""}, [&](absl::StatusOr<SessionRecord> r) { late.set_value(std::move(r)); });
  EXPECT_EQ(late.get_future().get().status().code(), absl::StatusCode::kUnavailable);
}

// import_session: an export comes back as a new, closed session with its messages in order
// and their times kept, all or nothing.
TEST_F(SessionGrpcServiceTest, AnExportComesBackAsANewClosedSessionWithItsTimes) {
  pb::ImportSessionResponse imported;
  grpc::Status status = Import(Recorded(), &imported);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_NE(imported.session().id(), "from-another-lab");
  EXPECT_EQ(imported.imported_from(), "from-another-lab");
  EXPECT_EQ(imported.session().device_id(), "psu-2");
  EXPECT_EQ(imported.session().port_name(), "/dev/ttyUSB0");
  EXPECT_TRUE(imported.session().closed());
  EXPECT_EQ(imported.message_count(), 3);

  std::vector<pb::Message> messages = Messages(imported.session().id());
  ASSERT_EQ(messages.size(), 3u);
  EXPECT_EQ(messages[0].message_id(), 1);
  EXPECT_EQ(messages[0].direction(), "tx");
  EXPECT_EQ(messages[0].content(), "*IDN?\n");
  EXPECT_EQ(messages[0].role(), "device");
  EXPECT_EQ(messages[0].occurred_at(), "2026-11-20T08:00:00.100Z");
  EXPECT_EQ(messages[1].latency_ms(), 30);
  EXPECT_EQ(messages[1].features(), "serial,/dev/ttyusb0");  // normalised as appends are
  EXPECT_EQ(messages[2].occurred_at(), "2026-11-20T08:00:05.000Z")
      << "a message that did not say when it happened keeps when it was stored";

  // A closed session takes no more appends.
  grpc::ClientContext context;
  pb::AppendMessageRequest append;
  append.set_session_id(imported.session().id());
  append.set_content("late");
  pb::AppendMessageResponse appended;
  EXPECT_EQ(stub_->AppendMessage(&context, append, &appended).error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
}

TEST_F(SessionGrpcServiceTest, ABadMessageRefusesTheWholeImportNamingIt) {
  pb::SessionExport exported = Recorded();
  exported.mutable_messages(1)->set_occurred_at("not a time");
  pb::ImportSessionResponse imported;
  grpc::Status status = Import(exported, &imported);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("message 2 of the import"), std::string::npos)
      << status.error_message();

  exported = Recorded();
  exported.mutable_messages(2)->clear_content();
  status = Import(exported, &imported);
  EXPECT_NE(status.error_message().find("message 3 of the import: content is required"),
            std::string::npos)
      << status.error_message();

  exported = Recorded();
  exported.mutable_session()->clear_device_id();
  EXPECT_EQ(Import(exported, &imported).error_code(), grpc::StatusCode::INVALID_ARGUMENT);

  grpc::ClientContext context;
  EXPECT_EQ(stub_->ImportSession(&context, pb::ImportSessionRequest(), &imported).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);

  grpc::ClientContext list_context;
  pb::ListSessionsRequest list;
  list.set_include_closed(true);
  pb::ListSessionsResponse sessions;
  ASSERT_TRUE(stub_->ListSessions(&list_context, list, &sessions).ok());
  EXPECT_EQ(sessions.sessions_size(), 0) << "nothing was stored by a refused import";

  ASSERT_TRUE(Import(Recorded(), &imported).ok()) << "and the service still serves";
}

}  // namespace
}  // namespace labgate::session

namespace labgate::session {
namespace {

// The in-process transport completes a write only when the client reads, so a client
// that never reads makes events pile up until the bound ends the stream.
TEST_F(SessionGrpcServiceTest, WatcherThatFallsBehindIsFinishedWithResourceExhausted) {
  pb::Session session = Create("d");
  grpc::ClientContext context;
  auto reader = stub_->WatchSession(&context, pb::WatchSessionRequest());
  reader->WaitForInitialMetadata();

  const int appends = static_cast<int>(WatchReactor::kMaxQueuedEvents) + 50;
  std::atomic<int> pending{appends};
  std::promise<void> all_acknowledged;
  for (int i = 0; i < appends; ++i) {
    AppendParams params;
    params.session_id = session.id();
    params.content = "event " + std::to_string(i);
    service_->store().AppendMessage(std::move(params), [&](const absl::StatusOr<MessageRecord>& r) {
      EXPECT_TRUE(r.ok()) << r.status();
      if (pending.fetch_sub(1) == 1) all_acknowledged.set_value();
    });
  }
  all_acknowledged.get_future().wait();

  int received = 0;
  pb::SessionEvent event;
  while (reader->Read(&event)) ++received;
  grpc::Status status = reader->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << status.error_message();
  EXPECT_LT(received, appends);
}

}  // namespace
}  // namespace labgate::session

namespace labgate::session {
namespace {

// The gateway's order at exit: Shutdown() first, then the server. Neither may hang
// with a watch open, and an append acknowledged before is kept.
TEST_F(SessionGrpcServiceTest, ShutdownBeforeServerShutdownDoesNotHang) {
  pb::Session session = Create("d");
  pb::AppendMessageResponse appended;
  ASSERT_TRUE(Append(session.id(), "kept", &appended).ok());
  grpc::ClientContext context;
  auto reader = stub_->WatchSession(&context, pb::WatchSessionRequest());
  reader->WaitForInitialMetadata();

  auto started = std::chrono::steady_clock::now();
  service_->Shutdown();
  pb::SessionEvent event;
  EXPECT_FALSE(reader->Read(&event));
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::UNAVAILABLE);
  pb::AppendMessageResponse late;
  EXPECT_EQ(Append(session.id(), "late", &late).error_code(), grpc::StatusCode::UNAVAILABLE);
  host_->Shutdown(std::chrono::seconds(5));
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(3));

  // Reopen the same directory: the acknowledged append is there, the refused one not.
  host_.reset();  // the server goes before the service it hosted
  service_.reset();
  auto reopened = CreateSessionService({data_dir_});
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  std::promise<absl::StatusOr<MessagePage>> page;
  MessageQuery query;
  query.session_id = session.id();
  (*reopened)->store().QueryMessages(
      query, [&](absl::StatusOr<MessagePage> result) { page.set_value(std::move(result)); });
  absl::StatusOr<MessagePage> messages = page.get_future().get();
  ASSERT_TRUE(messages.ok()) << messages.status();
  ASSERT_EQ(messages->messages.size(), 1u);
  EXPECT_EQ(messages->messages[0].content, "kept");
  (*reopened)->Shutdown();
}

}  // namespace
}  // namespace labgate::session
