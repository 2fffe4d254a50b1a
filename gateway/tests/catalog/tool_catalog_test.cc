#include "gateway/catalog/tool_catalog.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "labgate/reservations/v1/reservations.grpc.pb.h"
#include "labgate/serial/v1/serial.grpc.pb.h"
#include "labgate/session/v1/session.grpc.pb.h"
#include "labgate/testing/catalog_test.pb.h"

namespace labgate::gateway {
namespace {

const google::protobuf::ServiceDescriptor* Service(const std::string& name) {
  return labgate::testing::Everything::descriptor()->file()->FindServiceByName(name);
}

TEST(ToolCatalogTest, AnnotatedUnaryMethodsBecomeTools) {
  auto catalog = ToolCatalog::FromServices({Service("TestService")});
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  ASSERT_EQ((*catalog)->tools().size(), 2u);
  const ToolBinding* tool = (*catalog)->Find("do_everything");
  ASSERT_NE(tool, nullptr);
  EXPECT_EQ(tool->grpc_path, "/labgate.testing.TestService/DoEverything");
  nlohmann::json listed = tool->ToJson();
  EXPECT_EQ(listed["name"], "do_everything");
  EXPECT_EQ(listed["title"], "Do everything");
  EXPECT_EQ(listed["description"], "Round-trips every field shape.");
  EXPECT_EQ(listed["annotations"]["readOnlyHint"], true);
  EXPECT_EQ(listed["annotations"]["destructiveHint"], false);
  EXPECT_EQ(listed["annotations"]["idempotentHint"], true);
  EXPECT_EQ(listed["inputSchema"]["type"], "object");
  EXPECT_EQ(listed["outputSchema"]["type"], "object");
  EXPECT_EQ((*catalog)->Find("NotATool"), nullptr);
  EXPECT_EQ((*catalog)->Find("missing"), nullptr);
}

TEST(ToolCatalogTest, DuplicateNamesAndStreamingToolsAreRefused) {
  auto duplicate = ToolCatalog::FromServices({Service("TestService"), Service("DuplicateService")});
  EXPECT_EQ(duplicate.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(std::string(duplicate.status().message()), ::testing::HasSubstr("'recurse'"));
  auto streaming = ToolCatalog::FromServices({Service("StreamingToolService")});
  EXPECT_EQ(streaming.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ToolCatalogTest, SessionServiceOffersTheSeedTools) {
  auto catalog = ToolCatalog::FromServices(
      {labgate::session::v1::Session::descriptor()->file()->FindServiceByName("SessionService")});
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  for (const char* name :
       {"create_session", "append_message", "list_messages", "filter_messages", "export_session",
        "feature_index", "session_stats", "list_sessions", "close_session"}) {
    EXPECT_NE((*catalog)->Find(name), nullptr) << name;
  }
}

}  // namespace
}  // namespace labgate::gateway

namespace labgate::gateway {
namespace {

// Which serial and reservation tools may become MCP tasks, and how long a call is expected to
// take, as their proto annotations say.
TEST(ToolCatalogTest, LongLabCallsSayTheyMayBeTasksAndHowLongTheyTake) {
  auto catalog = ToolCatalog::FromServices(
      {labgate::serial::v1::OpenPortRequest::descriptor()->file()->FindServiceByName(
           "SerialService"),
       labgate::reservations::v1::Reservation::descriptor()->file()->FindServiceByName(
           "ReservationService")});
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  std::vector<std::string> optional;
  for (const ToolBinding& tool : (*catalog)->tools()) {
    if (tool.task_support == "optional") optional.push_back(tool.name);
    EXPECT_NE(tool.task_support, "required") << tool.name;
    const nlohmann::json listed = tool.ToJson();
    EXPECT_EQ(listed.contains("execution"), !tool.task_support.empty()) << tool.name;
  }
  // The long ones, and those a person's approval may hold (tasks only then).
  EXPECT_THAT(optional, ::testing::UnorderedElementsAre(
                            "read", "query", "wait_for", "send_expect", "reserve", "write",
                            "set_signals", "pulse_signal", "send_break", "run_sequence"));
  EXPECT_EQ((*catalog)->Find("wait_for")->ToJson()["execution"]["taskSupport"], "optional");

  EXPECT_EQ((*catalog)->Find("wait_for")->ExpectedDurationMs({{"timeout_ms", 20000}}), 20000);
  EXPECT_EQ((*catalog)->Find("wait_for")->ExpectedDurationMs(nlohmann::json::object()), 0)
      << "a timeout left to the port's default says nothing";
  const nlohmann::json script = {{"steps",
                                  {{{"send", "reset"}},
                                   {{"expect", {"boot"}}, {"timeout_ms", 30000}},
                                   {{"delay_ms", 500}},
                                   {{"signal", "dtr"}, {"level", false}, {"ms", 250}}}}};
  EXPECT_EQ((*catalog)->Find("send_expect")->ExpectedDurationMs(script), 30750);
  EXPECT_EQ((*catalog)->Find("reserve")->ExpectedDurationMs({{"wait_s", 1200}}), 1200000)
      << "seconds for a name ending _s";
  EXPECT_EQ((*catalog)->Find("write")->ExpectedDurationMs({{"timeout_ms", 99999}}), 0)
      << "a tool without duration fields is never long";
}

}  // namespace
}  // namespace labgate::gateway
