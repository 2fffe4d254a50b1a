// subscriptions/listen through the real StatelessDialect: the acknowledgement waits until
// every resource watch behind it is registered, and what the watches and list listeners
// report meanwhile follows it in order, so that a change made once the client holds the
// acknowledgement is never missed.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "common/access/access_control.h"
#include "common/access/access_policy.h"
#include "gateway/dialects/mcp_stateless/stateless_dialect.h"
#include "gateway/mcp/tool_access.h"

namespace labgate::gateway::stateless {
namespace {

using nlohmann::json;

// Resources whose watches become ready only when the test says so; "test://refused"
// cannot be subscribed to.
class DeferredResources : public ResourceProvider {
 public:
  void ListResources(JsonListDone done) override { done({}); }
  std::vector<json> ListResourceTemplates() const override { return {}; }
  bool HandlesUri(const std::string& uri) const override {
    return uri.starts_with("test://") || uri == "labgate://sessions";
  }
  void ReadResource(const std::string& /*uri*/, std::shared_ptr<RequestContext> /*context*/,
                    JsonDone done) override {
    done(absl::NotFoundError("not readable"));
  }
  std::shared_ptr<void> SubscribeResource(const std::string& uri,
                                          std::function<void()> /*updated*/) override {
    if (uri == "test://refused") return nullptr;
    return std::make_shared<int>(0);
  }
  std::shared_ptr<void> SubscribeResourceWhenReady(const std::string& uri,
                                                   std::function<void()> updated,
                                                   std::function<void()> ready) override {
    auto handle = SubscribeResource(uri, updated);
    if (handle) {
      std::lock_guard<std::mutex> lock(mutex_);
      watches_[uri] = {std::move(updated), std::move(ready)};
    }
    return handle;
  }
  void Change(const std::string& uri) { Watch(uri).updated(); }
  void MakeReady(const std::string& uri) { Watch(uri).ready(); }

 private:
  struct Registered {
    std::function<void()> updated;
    std::function<void()> ready;
  };
  Registered Watch(const std::string& uri) {
    std::lock_guard<std::mutex> lock(mutex_);
    return watches_.at(uri);
  }
  std::mutex mutex_;
  std::map<std::string, Registered> watches_;
};

const json kModernMeta = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                          {"io.modelcontextprotocol/clientCapabilities", json::object()}};

class ListenTest : public ::testing::Test {
 protected:
  ListenTest() { server_.resources = {&resources_}; }
  // The connection is gone: as a real one does, it cancels what it has in flight, which
  // releases the listen streams.
  ~ListenTest() override { calls_->CancelAll(); }

  void Handle(const json& message) {
    dialect_.Handle(jsonrpc::ParseMessage(message.dump()), Framing::kNewline, outbound_, principal_,
                    calls_);
  }
  void Listen(const json& notifications) {
    json params = {{"notifications", notifications}, {"_meta", kModernMeta}};
    Handle({{"jsonrpc", "2.0"}, {"id", 7}, {"method", "subscriptions/listen"}, {"params", params}});
  }
  // The methods sent so far, in order.
  std::vector<std::string> Methods() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::string> methods;
    methods.reserve(sent_.size());
    for (const json& message : sent_) methods.push_back(message.value("method", "(reply)"));
    return methods;
  }
  json Sent(size_t index) {
    std::lock_guard<std::mutex> lock(mutex_);
    return sent_.at(index);
  }

  DeferredResources resources_;
  McpServer server_;
  StatelessDialect dialect_{&server_, RequestStateCodec()};
  std::mutex mutex_;
  std::vector<json> sent_;
  std::shared_ptr<Outbound> outbound_ =
      std::make_shared<FunctionOutbound>([this](const OutboundMessage& message) {
        std::lock_guard<std::mutex> lock(mutex_);
        sent_.push_back(json::parse(message.payload));
      });
  std::shared_ptr<Principal> principal_ = std::make_shared<Principal>("test", "owner-1");
  std::shared_ptr<StatelessCalls> calls_ = std::make_shared<StatelessCalls>();
};

TEST_F(ListenTest, TheAcknowledgementWaitsForEveryWatchAndWhatCameMeanwhileFollowsIt) {
  Listen({{"toolsListChanged", true},
          {"resourceSubscriptions", {"test://a", "test://b", "test://refused"}}});
  EXPECT_TRUE(Methods().empty()) << "acknowledged before its watches were registered";

  resources_.MakeReady("test://a");
  resources_.Change("test://a");
  server_.NotifyListChanged(ListKind::kTools);
  EXPECT_TRUE(Methods().empty()) << "acknowledged before test://b's watch was registered";

  resources_.MakeReady("test://b");
  ASSERT_EQ(Methods(), (std::vector<std::string>{"notifications/subscriptions/acknowledged",
                                                 "notifications/resources/updated",
                                                 "notifications/tools/list_changed"}));
  const json acknowledged = Sent(0)["params"]["notifications"];
  EXPECT_EQ(acknowledged["toolsListChanged"], true) << acknowledged;
  EXPECT_EQ(acknowledged["resourceSubscriptions"], json({"test://a", "test://b"})) << acknowledged;
  EXPECT_EQ(Sent(0)["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 7);
  EXPECT_EQ(Sent(1)["params"]["uri"], "test://a");

  // Once acknowledged, changes go out as they come; a second readiness sends nothing.
  resources_.MakeReady("test://a");
  resources_.Change("test://b");
  ASSERT_EQ(Methods().size(), 4u);
  EXPECT_EQ(Sent(3)["params"]["uri"], "test://b");
}

TEST_F(ListenTest, WithNothingToWaitForTheAcknowledgementGoesAtOnce) {
  Listen({{"promptsListChanged", true}, {"resourceSubscriptions", {"test://refused"}}});
  ASSERT_EQ(Methods(), std::vector<std::string>{"notifications/subscriptions/acknowledged"});
  EXPECT_EQ(Sent(0)["params"]["notifications"], json({{"promptsListChanged", true}}));
  server_.NotifyListChanged(ListKind::kTools);  // not asked for
  server_.NotifyListChanged(ListKind::kPrompts);
  EXPECT_EQ(Methods(), (std::vector<std::string>{"notifications/subscriptions/acknowledged",
                                                 "notifications/prompts/list_changed"}));
}

// Under an access file a listen stream watches only the resources its principal may read:
// "test" is not in the file, so labgate://sessions is left out of the acknowledgement.
TEST_F(ListenTest, AResourceThePrincipalMayNotReadIsLeftOutOfTheAcknowledgement) {
  for (const char* role : {"", "admin"}) {
    json principals = json::object();
    if (*role != '\0') principals["test"] = {{"role", role}};
    auto policy = access::AccessPolicy::Parse({{"principals", principals}}, "access.json");
    ASSERT_TRUE(policy.ok()) << policy.status();
    server_.access =
        std::make_shared<ToolAccess>(access::AccessControl::ForTesting(*std::move(policy)));
    {
      std::lock_guard<std::mutex> lock(mutex_);
      sent_.clear();
    }
    Listen({{"resourceSubscriptions", {"labgate://sessions"}}});
    if (*role == '\0') {
      ASSERT_EQ(Methods(), std::vector<std::string>{"notifications/subscriptions/acknowledged"});
      EXPECT_FALSE(Sent(0)["params"]["notifications"].contains("resourceSubscriptions")) << Sent(0);
    } else {
      EXPECT_TRUE(Methods().empty()) << "an admin's watch is registered, and waited for";
      resources_.MakeReady("labgate://sessions");
      ASSERT_EQ(Methods(), std::vector<std::string>{"notifications/subscriptions/acknowledged"});
      EXPECT_EQ(Sent(0)["params"]["notifications"]["resourceSubscriptions"],
                json({"labgate://sessions"}));
    }
    calls_->CancelAll();
  }
}

TEST_F(ListenTest, AStreamCancelledBeforeItsAcknowledgementSendsNothing) {
  Listen({{"resourceSubscriptions", {"test://a"}}});
  resources_.Change("test://a");
  Handle({{"jsonrpc", "2.0"},
          {"method", "notifications/cancelled"},
          {"params", {{"requestId", 7}, {"_meta", kModernMeta}}}});
  resources_.MakeReady("test://a");
  resources_.Change("test://a");
  EXPECT_TRUE(Methods().empty()) << Sent(0);
}

}  // namespace
}  // namespace labgate::gateway::stateless
