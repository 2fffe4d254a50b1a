// ToolAccess's read-only index agrees with tools/call's dispatch: when two providers list a
// tool of the same name, the first one's hints decide, as the first one is the one called.
#include "gateway/mcp/tool_access.h"

#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "common/access/access_control.h"
#include "common/access/access_policy.h"
#include "gateway/mcp/mcp_server.h"

namespace labgate::gateway {
namespace {

using nlohmann::json;

class OneTool : public ToolProvider {
 public:
  OneTool(std::string name, bool read_only) : name_(std::move(name)), read_only_(read_only) {}
  std::vector<json> ListTools() const override {
    return {{{"name", name_},
             {"inputSchema", {{"type", "object"}}},
             {"annotations", {{"readOnlyHint", read_only_}}}}};
  }
  bool HasTool(const std::string& name) const override { return name == name_; }
  void CallTool(const std::string& /*name*/, const json& /*arguments*/,
                std::shared_ptr<RequestContext> /*context*/, ToolDone /*done*/) override {}

 private:
  std::string name_;
  bool read_only_;
};

std::shared_ptr<const ToolAccess> ViewerAccess() {
  auto policy =
      access::AccessPolicy::Parse({{"principals", {{"vera", {{"role", "viewer"}}}}}}, "test");
  EXPECT_TRUE(policy.ok()) << policy.status();
  return std::make_shared<ToolAccess>(access::AccessControl::ForTesting(*std::move(policy)));
}

TEST(ToolAccessTest, ASameNamedReadOnlyToolOfALaterProviderDoesNotLetAViewerCallTheFirst) {
  OneTool writer("write", /*read_only=*/false);  // dispatched: listed first
  OneTool action("write", /*read_only=*/true);   // an action tool of the same name
  McpServer server;
  server.tools = {&writer, &action};
  std::shared_ptr<const ToolAccess> access = ViewerAccess();
  EXPECT_EQ(access->MayCall(server, "vera", "write").code(), absl::StatusCode::kPermissionDenied);
}

TEST(ToolAccessTest, TheFirstProvidersReadOnlyToolStaysCallableWhateverALaterOneSays) {
  OneTool reader("status", /*read_only=*/true);
  OneTool other("status", /*read_only=*/false);
  McpServer server;
  server.tools = {&reader, &other};
  EXPECT_TRUE(ViewerAccess()->MayCall(server, "vera", "status").ok());
}

}  // namespace
}  // namespace labgate::gateway
