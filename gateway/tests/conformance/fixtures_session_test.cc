// The conformance fixtures behind a real McpSession: what a client sees on the wire for
// progress, logging, sampling round trips, subscriptions, completion and the dynamic
// fixtures' list_changed notices.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>
#include <utility>

#include "gateway/conformance/conformance_fixtures.h"
#include "gateway/dialects/mcp_stateful/mcp_session.h"
#include "gateway/jsonrpc/message.h"
#include "gateway/tests/eventually.h"

namespace labgate::gateway {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;

// A resource whose subscription becomes ready only when the test says so.
class DeferredResource : public ResourceProvider {
 public:
  static constexpr char kUri[] = "test://deferred";
  void ListResources(JsonListDone done) override { done({}); }
  std::vector<json> ListResourceTemplates() const override { return {}; }
  bool HandlesUri(const std::string& uri) const override { return uri == kUri; }
  void ReadResource(const std::string& /*uri*/, std::shared_ptr<RequestContext> /*context*/,
                    JsonDone done) override {
    done(absl::NotFoundError("not readable"));
  }
  std::shared_ptr<void> SubscribeResource(const std::string& /*uri*/,
                                          std::function<void()> /*updated*/) override {
    return std::make_shared<int>(0);
  }
  std::shared_ptr<void> SubscribeResourceWhenReady(const std::string& uri,
                                                   std::function<void()> updated,
                                                   std::function<void()> ready) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ready_ = std::move(ready);
    }
    return SubscribeResource(uri, std::move(updated));
  }
  // The `ready` of the subscription asked for, once it has been asked for.
  std::function<void()> TakeReady() {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::exchange(ready_, nullptr);
  }

 private:
  std::mutex mutex_;
  std::function<void()> ready_;
};

class FixturesSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    FixtureTimings timings;
    timings.dynamic_delay = std::chrono::milliseconds(1);
    timings.watch_interval = std::chrono::milliseconds(5);
    timings.step_delay = std::chrono::milliseconds(1);
    timings.client_timeout = std::chrono::seconds(30);
    // Registered by hand (not CreateConformanceFixtures) so that the timers start only
    // once the session is initialized and can hear the list_changed notices.
    fixtures_ = std::make_unique<ConformanceFixtures>(
        io_, timings, [this](ListKind kind) { server_.NotifyListChanged(kind); });
    server_.tools = {fixtures_.get()};
    server_.resources = {fixtures_.get()};
    server_.prompts = {fixtures_.get()};
    io_thread_ = std::thread([this] { io_.run(); });
    auto strand = strand_;
    session_ = std::make_shared<McpSession>(
        &server_, strand_,
        [strand](absl::AnyInvocable<void()> work) {
          boost::asio::dispatch(strand, std::move(work));
        },
        std::make_shared<FunctionOutbound>([this](const OutboundMessage& message) {
          std::lock_guard<std::mutex> lock(mutex_);
          sent_.push_back(json::parse(message.payload));
          related_.push_back(message.related_request);
          arrived_.notify_all();
        }),
        std::make_shared<Principal>("test", "owner-1"));
    session_->Register();
  }

  void TearDown() override {
    boost::asio::post(strand_, [this] { session_->Close(); });
    fixtures_.reset();
    work_.reset();
    io_.stop();
    io_thread_.join();
  }

  void Send(const json& message) {
    boost::asio::post(
        strand_, [this, text = message.dump()] { session_->Handle(jsonrpc::ParseMessage(text)); });
  }

  // The first message sent that satisfies `match` (waiting for it), or null.
  json WaitFor(const std::function<bool(const json&)>& match) {
    std::unique_lock<std::mutex> lock(mutex_);
    json found;
    arrived_.wait_for(lock, std::chrono::seconds(30), [&] {
      for (const json& message : sent_) {
        if (match(message)) {
          found = message;
          return true;
        }
      }
      return false;
    });
    return found;
  }

  json Request(int id, const std::string& method, const json& params) {
    Send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
    return WaitFor(
        [id](const json& m) { return m.value("id", json()) == id && !m.contains("method"); });
  }

  void Initialize(const json& capabilities) {
    json reply = Request(0, "initialize",
                         {{"protocolVersion", "2025-11-25"},
                          {"capabilities", capabilities},
                          {"clientInfo", {{"name", "t"}, {"version", "1"}}}});
    ASSERT_TRUE(reply.contains("result")) << reply.dump();
    Send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
  }

  std::vector<json> WithMethod(const std::string& method) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<json> found;
    for (const json& message : sent_) {
      if (message.value("method", "") == method) found.push_back(message);
    }
    return found;
  }

  McpServer server_;
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_ =
      boost::asio::make_work_guard(io_);
  boost::asio::strand<boost::asio::io_context::executor_type> strand_ =
      boost::asio::make_strand(io_);
  std::unique_ptr<ConformanceFixtures> fixtures_;
  std::thread io_thread_;
  std::shared_ptr<McpSession> session_;
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::vector<json> sent_;
  std::vector<std::string> related_;
};

TEST_F(FixturesSessionTest, ProgressNotificationsCarryTheTokenAndPrecedeTheResult) {
  Initialize(json::object());
  json reply = Request(7, "tools/call",
                       {{"name", "test_tool_with_progress"},
                        {"arguments", json::object()},
                        {"_meta", {{"progressToken", "progress-test-1"}}}});
  ASSERT_EQ(reply["result"]["content"][0]["text"], "Tool with progress executed successfully");
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<double> progress;
  for (size_t i = 0; i < sent_.size(); ++i) {
    if (sent_[i].value("method", "") != "notifications/progress") continue;
    EXPECT_EQ(sent_[i]["params"]["progressToken"], "progress-test-1");
    EXPECT_EQ(sent_[i]["params"]["total"], 100);
    EXPECT_EQ(related_[i], "7");  // sent on the request's own stream
    progress.push_back(sent_[i]["params"]["progress"].get<double>());
  }
  EXPECT_THAT(progress, ElementsAre(0, 50, 100));
  EXPECT_EQ(sent_.back()["id"], 7);  // the result comes last
}

TEST_F(FixturesSessionTest, LogMessagesRespectTheClientsLevel) {
  Initialize(json::object());
  ASSERT_TRUE(Request(1, "logging/setLevel", {{"level", "warning"}}).contains("result"));
  ASSERT_TRUE(Request(2, "tools/call", {{"name", "test_tool_with_logging"}}).contains("result"));
  EXPECT_TRUE(WithMethod("notifications/message").empty());

  ASSERT_TRUE(Request(3, "logging/setLevel", {{"level", "debug"}}).contains("result"));
  ASSERT_TRUE(Request(4, "tools/call", {{"name", "test_tool_with_logging"}}).contains("result"));
  auto logs = WithMethod("notifications/message");
  ASSERT_EQ(logs.size(), 3u);
  EXPECT_EQ(logs[0]["params"]["level"], "info");
  EXPECT_EQ(logs[0]["params"]["data"], "Tool execution started");
  EXPECT_EQ(logs[2]["params"]["data"], "Tool execution completed");
}

TEST_F(FixturesSessionTest, SamplingRoundTripsThroughTheClient) {
  Initialize({{"sampling", json::object()}});
  Send({{"jsonrpc", "2.0"},
        {"id", 9},
        {"method", "tools/call"},
        {"params", {{"name", "test_sampling"}, {"arguments", {{"prompt", "Test prompt"}}}}}});
  json ask =
      WaitFor([](const json& m) { return m.value("method", "") == "sampling/createMessage"; });
  ASSERT_TRUE(ask.contains("id")) << ask.dump();
  EXPECT_EQ(ask["params"]["messages"][0]["content"]["text"], "Test prompt");
  EXPECT_EQ(ask["params"]["maxTokens"], 100);
  Send({{"jsonrpc", "2.0"},
        {"id", ask["id"]},
        {"result",
         {{"role", "assistant"},
          {"content", {{"type", "text"}, {"text", "a test answer"}}},
          {"model", "test-model"},
          {"stopReason", "endTurn"}}}});
  json reply = WaitFor([](const json& m) { return m.value("id", json()) == 9; });
  EXPECT_EQ(reply["result"]["content"][0]["text"], "LLM response: a test answer");
}

TEST_F(FixturesSessionTest, ElicitationWithoutTheCapabilityIsAToolError) {
  Initialize(json::object());
  json reply =
      Request(3, "tools/call", {{"name", "test_elicitation"}, {"arguments", {{"message", "Hi"}}}});
  EXPECT_EQ(reply["result"]["isError"], true);
  EXPECT_TRUE(WithMethod("elicitation/create").empty());
}

TEST_F(FixturesSessionTest, SubscribersHearOfWatchedResourceUpdates) {
  Initialize(json::object());
  fixtures_->Start();
  ASSERT_TRUE(
      Request(4, "resources/subscribe", {{"uri", "test://watched-resource"}}).contains("result"));
  json update = WaitFor(
      [](const json& m) { return m.value("method", "") == "notifications/resources/updated"; });
  EXPECT_EQ(update["params"]["uri"], "test://watched-resource");
  EXPECT_TRUE(
      Request(5, "resources/unsubscribe", {{"uri", "test://watched-resource"}}).contains("result"));
}

// A change made after the acknowledgement must be reported, so the acknowledgement waits
// until the provider is ready (for labgate's resources: the service registered the watch).
TEST_F(FixturesSessionTest, ASubscriptionIsAcknowledgedOnlyOnceItsProviderIsReady) {
  DeferredResource deferred;
  server_.resources.push_back(&deferred);
  Initialize(json::object());
  Send({{"jsonrpc", "2.0"},
        {"id", 9},
        {"method", "resources/subscribe"},
        {"params", {{"uri", DeferredResource::kUri}}}});
  std::function<void()> ready;
  ASSERT_TRUE(testing::Eventually([&] { return (ready = deferred.TakeReady()) != nullptr; }));
  // The request's handler has run to its end on the strand: still no answer.
  std::promise<void> handled;
  boost::asio::post(strand_, [&handled] { handled.set_value(); });
  handled.get_future().wait();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const json& message : sent_) {
      EXPECT_NE(message.value("id", json()), 9) << "acknowledged before ready: " << message.dump();
    }
  }
  ready();
  json reply =
      WaitFor([](const json& m) { return m.value("id", json()) == 9 && !m.contains("method"); });
  EXPECT_TRUE(reply.contains("result")) << reply.dump();
  boost::asio::post(strand_, [this] { session_->Close(); });  // before `deferred` goes
}

TEST_F(FixturesSessionTest, DynamicFixturesAnnounceThemselves) {
  Initialize(json::object());
  fixtures_->Start();
  for (const char* method :
       {"notifications/tools/list_changed", "notifications/resources/list_changed",
        "notifications/prompts/list_changed"}) {
    json notice = WaitFor([method](const json& m) { return m.value("method", "") == method; });
    EXPECT_FALSE(notice.is_null()) << method;
  }
  json tools = Request(6, "tools/list", json::object());
  std::vector<std::string> names;
  for (const json& tool : tools["result"]["tools"]) names.push_back(tool["name"]);
  EXPECT_THAT(names, ::testing::Contains("test_dynamic_tool"));
}

TEST_F(FixturesSessionTest, CompletesPromptArguments) {
  Initialize(json::object());
  json reply = Request(8, "completion/complete",
                       {{"ref", {{"type", "ref/prompt"}, {"name", "test_prompt_with_arguments"}}},
                        {"argument", {{"name", "arg1"}, {"value", "par"}}}});
  EXPECT_EQ(reply["result"]["completion"]["values"], json::parse(R"(["paris","park","party"])"));
  json templ = Request(9, "completion/complete",
                       {{"ref", {{"type", "ref/resource"}, {"uri", "test://template/{id}/data"}}},
                        {"argument", {{"name", "id"}, {"value", "4"}}}});
  EXPECT_EQ(templ["result"]["completion"]["values"], json::parse(R"(["42"])"));
}

}  // namespace
}  // namespace labgate::gateway
