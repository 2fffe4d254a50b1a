#include "gateway/catalog/tool_catalog.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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
