// import_session: an export brought back as a new, closed session with its messages in order
// and their times kept, all or nothing, over the gRPC adapter on an in-process server.
#include <grpcpp/grpcpp.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>

#include "common/service_host.h"
#include "gtest/gtest.h"
#include "session-service/session_service.h"

namespace labgate::session {
namespace {

namespace pb = ::labgate::session::v1;

class SessionImportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "labgate-session-import-XXXXXX").string();
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

TEST_F(SessionImportTest, AnExportComesBackAsANewClosedSessionWithItsTimes) {
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

TEST_F(SessionImportTest, ABadMessageRefusesTheWholeImportNamingIt) {
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
