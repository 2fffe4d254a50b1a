// ActionTools against the real actions service on 127.0.0.1 (port 0): the contracts become
// tools with their own schemas, calls come back as structured results or the service's own
// texts, and a service that is down, then back, is named and then picked up.
#include "gateway/actions/action_tools.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "actions-service/actions_service.h"
#include "gateway/tests/eventually.h"
#include "gateway/tests/loopback_server.h"
#include "gateway/tests/request_context.h"

namespace labgate::gateway {
namespace {

using nlohmann::json;
using testing::ChannelTo;
using testing::Outcome;
using testing::RecordingRequest;

// A tool provider's answer as a JSON object, whether it came serialized or not.
absl::StatusOr<json> AsJson(absl::StatusOr<ToolResult> result) {
  if (!result.ok()) return result.status();
  return result->AsJson();
}

constexpr char kBoundary[] =
    "Non-clinical support; must provide escalation cues when risk is elevated";
constexpr char kInvalidText[] =
    "Input validation failed for action 'supportive_reply': Required field 'message' is "
    "missing or empty; Required field 'risk_level' is missing or empty";

// The real actions service with its built-in contracts, served over TCP.
class ActionsServer : public testing::LoopbackServer<labgate::actions::ActionsGrpcService> {
 public:
  ActionsServer()
      : LoopbackServer([] { return labgate::actions::CreateActionsService({}); },
                       [](labgate::actions::ActionsGrpcService& service) { service.Shutdown(); }) {}
};

class ActionToolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.Start();
    tools_ = std::make_unique<ActionTools>(ChannelTo(server_.address()));
    tools_->Start(/*watch_connectivity=*/false);
  }
  void TearDown() override { tools_->Stop(); }

  absl::StatusOr<json> Invoke(const std::string& action, const json& input) {
    Outcome<absl::StatusOr<json>> outcome;
    tools_->Invoke(action, input, outcome.Callback());
    return outcome.Wait();
  }

  ActionsServer server_;
  std::unique_ptr<ActionTools> tools_;
};

TEST_F(ActionToolsTest, EveryContractIsAToolWithItsOwnSchemas) {
  std::vector<std::string> names;
  for (const json& tool : tools_->ListTools()) names.push_back(tool["name"]);
  EXPECT_EQ(names,
            (std::vector<std::string>{
                "age_inclusive_design_check", "cognitive_accessibility_audit",
                "cultural_context_check", "deescalation_plan", "empathetic_reframe",
                "grief_support_response", "neurodiversity_design_check",
                "rewrite_depression_sensitive_content", "supportive_reply", "wcagaaa_check"}));
  EXPECT_TRUE(tools_->HasTool("supportive_reply"));
  EXPECT_FALSE(tools_->HasTool("open_port"));

  json reply;
  for (const json& tool : tools_->ListTools()) {
    if (tool["name"] == "supportive_reply") reply = tool;
  }
  EXPECT_EQ(reply["title"], "Supportive reply");
  EXPECT_EQ(reply["annotations"]["title"], "Supportive reply");
  EXPECT_TRUE(
      reply["description"].get<std::string>().ends_with(std::string(" Boundary: ") + kBoundary));
  // The contract's own input schema, without the "$schema" some clients refuse.
  EXPECT_FALSE(reply["inputSchema"].contains("$schema"));
  EXPECT_EQ(reply["inputSchema"]["required"], json::array({"message", "risk_level"}));
  EXPECT_EQ(reply["inputSchema"]["properties"]["risk_level"]["enum"],
            json::array({"low", "medium", "high"}));
  // The output schema wraps the contract's output in the action response.
  EXPECT_EQ(reply["outputSchema"]["required"],
            json::array({"action", "boundaryNotice", "uncertainty", "assumptions", "output"}));
  EXPECT_FALSE(reply["outputSchema"]["properties"]["output"].contains("$schema"));
  EXPECT_EQ(reply["outputSchema"]["properties"]["output"]["required"],
            json::array({"reply", "escalation_guidance"}));
  EXPECT_EQ(reply["annotations"]["readOnlyHint"], true);
  EXPECT_EQ(reply["annotations"]["destructiveHint"], false);
}

TEST_F(ActionToolsTest, InvokeReturnsTheActionResponse) {
  absl::StatusOr<json> result =
      Invoke("supportive_reply", {{"message", "I feel overwhelmed"}, {"risk_level", "medium"}});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ((*result)["action"], "supportive_reply");
  EXPECT_EQ((*result)["boundaryNotice"], kBoundary);
  EXPECT_EQ((*result)["uncertainty"], "medium");
  ASSERT_FALSE((*result)["assumptions"].empty());
  EXPECT_EQ((*result)["assumptions"][0], "Risk level: medium (self-reported or system-assessed)");
  EXPECT_FALSE((*result)["output"]["reply"].get<std::string>().empty());
  EXPECT_TRUE((*result)["output"]["escalation_guidance"].is_array());
}

TEST_F(ActionToolsTest, FailuresCarryTheServicesOwnTexts) {
  absl::StatusOr<json> invalid =
      Invoke("supportive_reply", {{"message", ""}, {"risk_level", nullptr}});
  EXPECT_EQ(invalid.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(invalid.status().message(), kInvalidText);
  json invalid_result = ActionResultJson(invalid);
  EXPECT_EQ(invalid_result["isError"], true);
  EXPECT_EQ(invalid_result["content"][0]["text"], kInvalidText);

  absl::StatusOr<json> unknown = Invoke("no_such_action", json::object());
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(ActionResultJson(unknown)["content"][0]["text"],
            "Unknown action: 'no_such_action'. Call list_actions to see available actions.");
}

TEST(ActionResultJsonTest, SuccessIsStructuredAndOtherFailuresNameTheirCode) {
  json ok = ActionResultJson(json{{"action", "a"}, {"output", {{"x", 1}}}});
  EXPECT_EQ(ok["isError"], false);
  EXPECT_EQ(ok["structuredContent"]["output"]["x"], 1);
  EXPECT_EQ(json::parse(ok["content"][0]["text"].get<std::string>()), ok["structuredContent"]);
  json down = ActionResultJson(absl::UnavailableError("actions service at h:1 is not reachable"));
  EXPECT_EQ(down["content"][0]["text"], "UNAVAILABLE: actions service at h:1 is not reachable");
  EXPECT_FALSE(down.contains("structuredContent"));
}

TEST_F(ActionToolsTest, CallToolAnswersACallToolResultAndLogsTheCall) {
  auto request = std::make_shared<RecordingRequest>();
  Outcome<absl::StatusOr<ToolResult>> outcome;
  tools_->CallTool("supportive_reply", {{"message", "hello"}, {"risk_level", "low"}}, request,
                   outcome.Callback());
  absl::StatusOr<json> result = AsJson(outcome.Wait());
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ((*result)["isError"], false);
  EXPECT_EQ((*result)["structuredContent"]["action"], "supportive_reply");
  EXPECT_TRUE(request->has_cancel_handler());  // a cancelled request cancels the gRPC call

  auto failing = std::make_shared<RecordingRequest>();
  Outcome<absl::StatusOr<ToolResult>> failed;
  tools_->CallTool("supportive_reply", {{"message", "hello"}}, failing, failed.Callback());
  absl::StatusOr<json> refusal = AsJson(failed.Wait());
  ASSERT_TRUE(refusal.ok()) << refusal.status();  // a tool failure is a result, not an error
  EXPECT_EQ((*refusal)["isError"], true);
  bool logged_error = false;
  for (const json& log : failing->logs()) logged_error |= log["level"] == "error";
  EXPECT_TRUE(logged_error) << "a failed call is logged to the client as an error";
}

TEST_F(ActionToolsTest, OrderedOutputFollowsTheOutputSchema) {
  nlohmann::ordered_json ordered = tools_->OrderedOutput(
      "supportive_reply",
      {{"boundaries_notice", "b"}, {"zz_extra", 1}, {"escalation_guidance", {}}, {"reply", "r"}});
  std::vector<std::string> keys;
  for (const auto& [key, value] : ordered.items()) keys.push_back(key);
  // Schema order first, then the rest.
  EXPECT_EQ(keys, (std::vector<std::string>{"reply", "escalation_guidance", "boundaries_notice",
                                            "zz_extra"}));
}

TEST(ActionToolsDownTest, ADownServiceIsNamedAndPickedUpWhenItComesBack) {
  // A port that was just free: nothing listens on it until the service starts there.
  ActionsServer server;
  server.Start();
  const int port = server.port();
  const std::string address = server.address();
  server.Stop();

  ActionTools tools(ChannelTo(address), std::chrono::seconds(5));
  tools.SetServiceAddress(address);
  std::atomic<int> changes{0};
  tools.OnChanged([&changes] { changes.fetch_add(1); });
  tools.Start(/*watch_connectivity=*/true);
  EXPECT_TRUE(tools.ListTools().empty());

  Outcome<absl::StatusOr<json>> outcome;
  tools.Invoke("supportive_reply", {{"message", "x"}, {"risk_level", "low"}}, outcome.Callback());
  absl::StatusOr<json> down = outcome.Wait();
  EXPECT_EQ(down.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(down.status().message(), "actions service at " + address + " is not reachable");

  server.Start(port);
  EXPECT_TRUE(testing::Eventually([&] { return changes.load() > 0; }));
  EXPECT_EQ(changes.load(), 1);
  EXPECT_EQ(tools.ListTools().size(), 10u);
  tools.Stop();
}

}  // namespace
}  // namespace labgate::gateway
