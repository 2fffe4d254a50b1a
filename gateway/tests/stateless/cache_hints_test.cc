// The 2026 era's cache hints on tools/list: public and kept for a while when every caller
// sees the same tools, private and stale at once when the access file filters them per
// principal (and a reload may change them).
#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/access/access_control.h"
#include "common/access/access_policy.h"
#include "gateway/dialects/mcp_stateless/stateless_dialect.h"

namespace labgate::gateway::stateless {
namespace {

using nlohmann::json;

class TwoTools : public ToolProvider {
 public:
  std::vector<json> ListTools() const override {
    return {Tool("status", true), Tool("write", false)};
  }
  bool HasTool(const std::string& name) const override {
    return name == "status" || name == "write";
  }
  void CallTool(const std::string& /*name*/, const json& /*arguments*/,
                std::shared_ptr<RequestContext> /*context*/, ToolDone /*done*/) override {}

 private:
  static json Tool(const std::string& name, bool read_only) {
    return {{"name", name},
            {"inputSchema", {{"type", "object"}}},
            {"annotations", {{"readOnlyHint", read_only}}}};
  }
};

const json kModernMeta = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                          {"io.modelcontextprotocol/clientCapabilities", json::object()}};

class CacheHintsTest : public ::testing::Test {
 protected:
  CacheHintsTest() { server_.tools = {&tools_}; }

  // The result of one request of this era, answered before Handle returns.
  json Ask(const std::string& method) {
    const json request = {
        {"jsonrpc", "2.0"}, {"id", 1}, {"method", method}, {"params", {{"_meta", kModernMeta}}}};
    dialect_->Handle(jsonrpc::ParseMessage(request.dump()), Framing::kNewline, outbound_,
                     principal_, calls_);
    std::lock_guard<std::mutex> lock(mutex_);
    EXPECT_EQ(sent_.size(), 1u);
    json result = sent_.empty() ? json() : sent_.back().value("result", json());
    sent_.clear();
    return result;
  }

  TwoTools tools_;
  McpServer server_;
  std::unique_ptr<StatelessDialect> dialect_;
  std::mutex mutex_;
  std::vector<json> sent_;
  std::shared_ptr<Outbound> outbound_ =
      std::make_shared<FunctionOutbound>([this](const OutboundMessage& message) {
        std::lock_guard<std::mutex> lock(mutex_);
        sent_.push_back(json::parse(message.payload));
      });
  std::shared_ptr<Principal> principal_ = std::make_shared<Principal>("vera", "owner-1");
  std::shared_ptr<StatelessCalls> calls_ = std::make_shared<StatelessCalls>();
};

TEST_F(CacheHintsTest, WithoutAnAccessFileToolsListIsPublic) {
  dialect_ = std::make_unique<StatelessDialect>(&server_, RequestStateCodec());
  json result = Ask("tools/list");
  ASSERT_EQ(result["tools"].size(), 2u) << result;
  EXPECT_EQ(result["cacheScope"], "public");
  EXPECT_EQ(result["ttlMs"], 30000);
}

TEST_F(CacheHintsTest, ToolsListFilteredByAnAccessFileIsPrivateAndStaleAtOnce) {
  auto policy =
      access::AccessPolicy::Parse({{"principals", {{"vera", {{"role", "viewer"}}}}}}, "test");
  ASSERT_TRUE(policy.ok()) << policy.status();
  server_.access =
      std::make_shared<ToolAccess>(access::AccessControl::ForTesting(*std::move(policy)));
  dialect_ = std::make_unique<StatelessDialect>(&server_, RequestStateCodec());

  json result = Ask("tools/list");
  ASSERT_EQ(result["tools"].size(), 1u) << result;  // vera's own list
  EXPECT_EQ(result["tools"][0]["name"], "status");
  EXPECT_EQ(result["cacheScope"], "private");
  EXPECT_EQ(result["ttlMs"], 0);

  // The lists the access file does not filter keep their hints.
  result = Ask("prompts/list");
  EXPECT_EQ(result["cacheScope"], "public");
  EXPECT_EQ(result["ttlMs"], 30000);
}

}  // namespace
}  // namespace labgate::gateway::stateless
