// LabgatePrompts over real services on 127.0.0.1 (the session and actions services on one
// server, a serial service on another), read through LabgateResources: the guided session's
// exact text, argument errors, a transcript summary that embeds the real transcript, and
// argument completion from the services.
#include "gateway/prompts/labgate_prompts.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "actions-service/actions_service.h"
#include "common/service_host.h"
#include "gateway/tests/request_context.h"
#include "gateway/tests/serial_bench.h"
#include "gateway/tests/temp_dir.h"
#include "labgate/session/v1/session.grpc.pb.h"
#include "session-service/session_service.h"

namespace labgate::gateway {
namespace {

namespace session_v1 = labgate::session::v1;
using nlohmann::json;
using testing::ChannelTo;
using testing::Outcome;
using testing::RecordingRequest;
using testing::SerialBench;

constexpr char kGuidedText[] =
    "Work with the instrument on serial port loop://lab and keep a transcript.\n"
    "1. create_session {device_id: \"dmm-1\", port_name: \"loop://lab\"}.\n"
    "2. open_port {port_name: \"loop://lab\", baud_rate: 115200, terminator: \"\\n\", "
    "timeout_ms: 1000}.\n"
    "3. write {data: \"*IDN?\"} then read {}; append both to the session (role user / device, "
    "direction tx / rx, features \"scpi,idn\").\n"
    "4. Tell me what instrument answered, then wait for my instructions. Log every further "
    "command and reply the same way; if a read times out, say so rather than guessing.\n"
    "5. When I am done: close the port and close_session.";

class LabgatePromptsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto session = labgate::session::CreateSessionService({data_dir_.path()});
    ASSERT_TRUE(session.ok()) << session.status();
    session_ = std::move(*session);
    auto actions = labgate::actions::CreateActionsService({});
    ASSERT_TRUE(actions.ok()) << actions.status();
    actions_ = std::move(*actions);
    auto host = ServiceHost::Start("127.0.0.1:0", {session_.get(), actions_.get()});
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = std::move(*host);
    ASSERT_NO_FATAL_FAILURE(serial_.Start());

    auto services = ChannelTo("127.0.0.1:" + std::to_string(host_->port()));
    session_stub_ = session_v1::SessionService::NewStub(services);
    resources_ = std::make_unique<LabgateResources>(
        ResourceChannels{services, ChannelTo(serial_.address()), services},
        std::chrono::seconds(20));
    prompts_ = std::make_unique<LabgatePrompts>(resources_.get());
  }
  void TearDown() override {
    prompts_.reset();
    resources_.reset();
    serial_.Stop();
    if (host_) {
      session_->FinishWatchStreams();
      actions_->Shutdown();
      host_->Shutdown(std::chrono::seconds(2));
      session_->Shutdown();
    }
  }

  absl::StatusOr<json> Get(const std::string& name, const json& arguments) {
    Outcome<absl::StatusOr<json>> outcome;
    prompts_->GetPrompt(name, arguments, std::make_shared<RecordingRequest>(), outcome.Callback());
    return outcome.Wait();
  }
  std::vector<std::string> Complete(const std::string& prompt, const std::string& argument,
                                    const std::string& value) {
    Outcome<std::vector<std::string>> outcome;
    prompts_->CompletePromptArgument(prompt, argument, value, json::object(), outcome.Callback());
    return outcome.Wait();
  }
  std::string NewSession(const std::string& device, const std::string& first_message) {
    grpc::ClientContext create_context;
    session_v1::CreateSessionRequest create;
    create.set_device_id(device);
    session_v1::CreateSessionResponse created;
    EXPECT_TRUE(session_stub_->CreateSession(&create_context, create, &created).ok());
    grpc::ClientContext append_context;
    session_v1::AppendMessageRequest append;
    append.set_session_id(created.session().id());
    append.set_content(first_message);
    append.set_role("device");
    session_v1::AppendMessageResponse appended;
    EXPECT_TRUE(session_stub_->AppendMessage(&append_context, append, &appended).ok());
    return created.session().id();
  }

  testing::TempDir data_dir_;
  std::unique_ptr<labgate::session::SessionGrpcService> session_;
  std::unique_ptr<labgate::actions::ActionsGrpcService> actions_;
  std::unique_ptr<ServiceHost> host_;
  SerialBench serial_;
  std::unique_ptr<session_v1::SessionService::Stub> session_stub_;
  std::unique_ptr<LabgateResources> resources_;
  std::unique_ptr<LabgatePrompts> prompts_;
};

TEST_F(LabgatePromptsTest, ListsTwoPromptsWithTheirArguments) {
  std::vector<json> prompts = prompts_->ListPrompts();
  ASSERT_EQ(prompts.size(), 2u);
  EXPECT_EQ(prompts[0]["name"], "instrument_session");
  EXPECT_EQ(prompts[0]["arguments"][0]["name"], "port_name");
  EXPECT_EQ(prompts[0]["arguments"][0]["required"], true);
  EXPECT_EQ(prompts[0]["arguments"][1]["required"], false);
  EXPECT_EQ(prompts[1]["name"], "transcript_summary");
  EXPECT_EQ(prompts[1]["arguments"][0]["name"], "session_id");
  EXPECT_TRUE(prompts_->HasPrompt("transcript_summary"));
  EXPECT_FALSE(prompts_->HasPrompt("summary"));
}

TEST_F(LabgatePromptsTest, TheGuidedSessionSpellsOutEachStep) {
  absl::StatusOr<json> prompt =
      Get("instrument_session",
          {{"port_name", "loop://lab"}, {"baud_rate", "115200"}, {"device_id", "dmm-1"}});
  ASSERT_TRUE(prompt.ok()) << prompt.status();
  EXPECT_EQ((*prompt)["description"], "Guided session on loop://lab");
  ASSERT_EQ((*prompt)["messages"].size(), 1u);
  EXPECT_EQ((*prompt)["messages"][0]["role"], "user");
  EXPECT_EQ((*prompt)["messages"][0]["content"]["text"], kGuidedText);

  // Defaults: 9600 baud, the transcript filed under the port's name.
  absl::StatusOr<json> plain = Get("instrument_session", {{"port_name", "loop://x"}});
  ASSERT_TRUE(plain.ok()) << plain.status();
  const std::string text = (*plain)["messages"][0]["content"]["text"];
  EXPECT_NE(text.find("baud_rate: 9600,"), std::string::npos) << text;
  EXPECT_NE(text.find("device_id: \"loop://x\""), std::string::npos) << text;
}

TEST_F(LabgatePromptsTest, BadArgumentsAreInvalidArgumentWithTheirName) {
  absl::StatusOr<json> missing = Get("instrument_session", json::object());
  EXPECT_EQ(missing.status(), absl::InvalidArgumentError("missing required argument 'port_name'"));
  absl::StatusOr<json> typed = Get("instrument_session", {{"port_name", 5}});
  EXPECT_EQ(typed.status(), absl::InvalidArgumentError("argument 'port_name' must be a string"));
  for (const char* baud : {"fast", "0", "4000001"}) {
    EXPECT_EQ(
        Get("instrument_session", {{"port_name", "loop://"}, {"baud_rate", baud}}).status(),
        absl::InvalidArgumentError("argument 'baud_rate' must be a whole number from 1 to 4000000"))
        << baud;
  }
  EXPECT_EQ(Get("transcript_summary", json::object()).status(),
            absl::InvalidArgumentError("missing required argument 'session_id'"));
}

TEST_F(LabgatePromptsTest, ASummaryEmbedsTheRealTranscript) {
  const std::string id = NewSession("scope-7", "RIGOL TECHNOLOGIES,DS1104Z");
  absl::StatusOr<json> prompt = Get("transcript_summary", {{"session_id", id}});
  ASSERT_TRUE(prompt.ok()) << prompt.status();
  EXPECT_EQ((*prompt)["description"], "Summary of session " + id);
  ASSERT_EQ((*prompt)["messages"].size(), 2u);
  const json& resource = (*prompt)["messages"][1]["content"]["resource"];
  EXPECT_EQ((*prompt)["messages"][1]["content"]["type"], "resource");
  EXPECT_EQ(resource["uri"], "labgate://sessions/" + id);
  const json transcript = json::parse(resource["text"].get<std::string>());
  EXPECT_NE(transcript.dump().find("RIGOL TECHNOLOGIES,DS1104Z"), std::string::npos)
      << transcript.dump();
  EXPECT_NE(transcript.dump().find("scope-7"), std::string::npos);

  absl::StatusOr<json> unknown =
      Get("transcript_summary", {{"session_id", "00000000-0000-4000-8000-000000000000"}});
  EXPECT_EQ(unknown.status(),
            absl::InvalidArgumentError("no session '00000000-0000-4000-8000-000000000000'"));
}

TEST_F(LabgatePromptsTest, ArgumentsAreCompletedFromTheServices) {
  EXPECT_EQ(Complete("instrument_session", "baud_rate", "11"), std::vector<std::string>{"115200"});
  EXPECT_EQ(Complete("instrument_session", "baud_rate", "9").size(), 2u);  // 9600, 921600
  const std::string id = NewSession("dmm-2", "ready");
  std::vector<std::string> ids = Complete("transcript_summary", "session_id", id.substr(0, 8));
  EXPECT_EQ(ids, std::vector<std::string>{id});
  std::vector<std::string> ports = Complete("instrument_session", "port_name", "loop");
  EXPECT_FALSE(ports.empty());
  for (const std::string& port : ports) EXPECT_EQ(port.rfind("loop", 0), 0u) << port;
  EXPECT_TRUE(Complete("instrument_session", "device_id", "x").empty());
}

}  // namespace
}  // namespace labgate::gateway
