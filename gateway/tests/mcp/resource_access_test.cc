// Resources under the access file: each labgate resource needs the permission of the tool whose
// answer it shows, and a port's resource needs that port, so a principal reads, subscribes to
// and lists only what it could have asked for with a tool.
#include "gateway/mcp/resource_access.h"

#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "common/access/access_control.h"
#include "common/access/access_policy.h"
#include "gateway/mcp/mcp_server.h"
#include "gateway/mcp/tool_access.h"

namespace labgate::gateway {
namespace {

using nlohmann::json;

class ReadOnlyTools : public ToolProvider {
 public:
  std::vector<json> ListTools() const override {
    std::vector<json> tools;
    for (const char* name : {"describe_port", "list_sessions", "export_session",
                             "list_ports_extended", "list_reservations"}) {
      tools.push_back({{"name", name},
                       {"inputSchema", {{"type", "object"}}},
                       {"annotations", {{"readOnlyHint", true}}}});
    }
    return tools;
  }
  bool HasTool(const std::string& /*name*/) const override { return true; }
  void CallTool(const std::string& /*name*/, const json& /*arguments*/,
                std::shared_ptr<RequestContext> /*context*/, ToolDone /*done*/) override {}
};

class ResourceAccessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto policy = access::AccessPolicy::Parse(
        {{"principals",
          {{"vera", {{"role", "viewer"}}},
           {"student",
            {{"role", "operator"}, {"tools", {"describe_port"}}, {"ports", {"dmm-*"}}}}}}},
        "lab-access.json");
    ASSERT_TRUE(policy.ok()) << policy.status();
    server_.tools = {&tools_};
    server_.access =
        std::make_shared<ToolAccess>(access::AccessControl::ForTesting(*std::move(policy)));
  }

  ReadOnlyTools tools_;
  McpServer server_;
};

// The tool a resource needs, "" for none.
std::string ToolFor(const std::string& uri) {
  const std::optional<ResourceNeeds> needs = ResourceNeedsFor(uri);
  return needs.has_value() ? needs->tool : "";
}

TEST_F(ResourceAccessTest, EachResourceNeedsTheToolWhoseAnswerItShows) {
  EXPECT_EQ(ToolFor("labgate://sessions"), "list_sessions");
  EXPECT_EQ(ToolFor("labgate://sessions/abc"), "export_session");
  EXPECT_EQ(ToolFor("labgate://ports"), "list_ports_extended");
  EXPECT_EQ(ToolFor("labgate://ports/%2Fdev%2FttyUSB0"), "describe_port");
  const std::optional<ResourceNeeds> port = ResourceNeedsFor("labgate://ports/%2Fdev%2FttyUSB0");
  EXPECT_EQ(port.has_value() ? port->port : "", "/dev/ttyUSB0");
  EXPECT_EQ(ToolFor("labgate://reservations/7"), "list_reservations");
  EXPECT_EQ(ToolFor("labgate://actions/supportive_reply"), "supportive_reply");
  EXPECT_EQ(ResourceNeedsFor("test://static-text"), std::nullopt) << "not a labgate resource";
}

TEST_F(ResourceAccessTest, APrincipalThatMayDoNothingReadsNothing) {
  const absl::Status refused = MayReadResource(server_, "mallory", "labgate://sessions/abc");
  EXPECT_EQ(refused.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(
      absl::StrContains(refused.message(), "labgate://sessions/abc: mallory may do nothing"))
      << refused.message();
  EXPECT_TRUE(MayReadResource(server_, "mallory", "test://static-text").ok());
}

TEST_F(ResourceAccessTest, APortsResourceNeedsThePortAndAToolListNeedsItsTool) {
  EXPECT_TRUE(MayReadResource(server_, "student", "labgate://ports/dmm-1").ok());
  const absl::Status other_port = MayReadResource(server_, "student", "labgate://ports/psu-2");
  EXPECT_EQ(other_port.code(), absl::StatusCode::kPermissionDenied) << other_port.message();
  const absl::Status transcripts = MayReadResource(server_, "student", "labgate://sessions/abc");
  EXPECT_EQ(transcripts.code(), absl::StatusCode::kPermissionDenied)
      << "student may call describe_port only, not export_session";
  EXPECT_TRUE(MayReadResource(server_, "vera", "labgate://sessions/abc").ok())
      << "a viewer calls export_session, a read-only tool";
  EXPECT_TRUE(MayReadResource(server_, "vera", "labgate://ports/psu-2").ok());
}

TEST_F(ResourceAccessTest, WithoutAnAccessFileEveryoneReadsEverything) {
  McpServer open;
  EXPECT_TRUE(MayReadResource(open, "mallory", "labgate://sessions/abc").ok());
}

}  // namespace
}  // namespace labgate::gateway
