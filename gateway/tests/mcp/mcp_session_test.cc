// McpSession against a real in-process gRPC service built from the catalog test proto:
// lifecycle, tool calls, errors, reply-once and cancellation of a call in flight.
#include "gateway/dialects/mcp_stateful/mcp_session.h"

#include <gmock/gmock.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "common/service_host.h"
#include "gateway/core/process_io_context.h"
#include "gateway/tools/catalog_tools.h"
#include "labgate/testing/catalog_test.grpc.pb.h"

namespace labgate::gateway {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

// Echoes its request; "slow" holds the call until the client cancels it; "fail" fails.
class TestServiceImpl final : public labgate::testing::TestService::CallbackService {
 public:
  std::atomic<int> cancelled{0};
  std::atomic<int> started_slow{0};

  grpc::ServerUnaryReactor* DoEverything(grpc::CallbackServerContext* context,
                                         const labgate::testing::Everything* request,
                                         labgate::testing::Everything* response) override {
    if (request->port_name() == "slow") {
      class Held : public grpc::ServerUnaryReactor {
       public:
        explicit Held(TestServiceImpl* owner) : owner_(owner) {}
        void OnCancel() override {
          owner_->cancelled++;
          Finish(grpc::Status::CANCELLED);
        }
        void OnDone() override { delete this; }

       private:
        TestServiceImpl* owner_;
      };
      started_slow++;
      return new Held(this);
    }
    auto* reactor = context->DefaultReactor();
    if (request->port_name() == "fail") {
      reactor->Finish(grpc::Status(grpc::StatusCode::NOT_FOUND, "no device at fail"));
      return reactor;
    }
    *response = *request;
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }

  grpc::ServerUnaryReactor* Recurse(grpc::CallbackServerContext* context,
                                    const labgate::testing::Nested* request,
                                    labgate::testing::Nested* response) override {
    *response = *request;
    auto* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }
};

class McpSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto host = ServiceHost::Start("", {&service_});
    ASSERT_TRUE(host.ok());
    host_ = std::move(*host);
    channels_.Set("labgate.testing.TestService", host_->InProcessChannel());
    const auto* file = labgate::testing::Everything::descriptor()->file();
    auto catalog = ToolCatalog::FromServices({file->FindServiceByName("TestService")});
    ASSERT_TRUE(catalog.ok());
    catalog_ = std::move(*catalog);
    invoker_ = std::make_unique<ToolInvoker>(&channels_);
    tools_ = std::make_unique<CatalogTools>(catalog_.get(), invoker_.get(), nullptr,
                                            std::chrono::seconds(10));
    server_.tools = {tools_.get()};
    server_.config.instructions = "test instructions";
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
          arrived_.notify_all();
        }),
        std::make_shared<Principal>("test", "owner-1"));
    session_->Register();
  }

  void TearDown() override {
    Post([this] { session_->Close(); });
    work_.reset();
    io_thread_.join();
    host_->Shutdown(std::chrono::milliseconds(500));
  }

  void Post(std::function<void()> fn) { boost::asio::post(strand_, std::move(fn)); }

  void Send(const std::string& text) {
    Post([this, text] { session_->Handle(jsonrpc::ParseMessage(text)); });
  }

  json Request(const std::string& raw_id, const std::string& method, const json& params) {
    Send(json({{"jsonrpc", "2.0"}, {"method", method}, {"params", params}})
             .dump()
             .insert(1, "\"id\":" + raw_id + ","));
    return WaitFor(json::parse(raw_id));
  }

  json WaitFor(const json& id, std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    std::unique_lock<std::mutex> lock(mutex_);
    json found;
    arrived_.wait_for(lock, timeout, [&] {
      for (auto it = sent_.begin(); it != sent_.end(); ++it) {
        if ((*it)["id"] == id) {
          found = *it;
          sent_.erase(it);
          return true;
        }
      }
      return false;
    });
    return found;
  }

  size_t CountWithId(const json& id) {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::count_if(sent_.begin(), sent_.end(), [&](const json& m) { return m["id"] == id; });
  }

  void Initialize() {
    json reply = Request("0", "initialize",
                         {{"protocolVersion", "2025-11-25"},
                          {"capabilities", json::object()},
                          {"clientInfo", {{"name", "t"}, {"version", "1"}}}});
    ASSERT_TRUE(reply.contains("result")) << reply.dump();
  }

  TestServiceImpl service_;
  std::unique_ptr<ServiceHost> host_;
  BackendChannels channels_;
  std::unique_ptr<ToolCatalog> catalog_;
  std::unique_ptr<ToolInvoker> invoker_;
  std::unique_ptr<CatalogTools> tools_;
  McpServer server_;
  // The product's io_context (see there why): gRPC's threads may let go of the session, and
  // of its strand, just after the test ends, or queue a late reply on it.
  boost::asio::io_context& io_ = ProcessLifetimeIoContext();
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_ =
      boost::asio::make_work_guard(io_);
  boost::asio::strand<boost::asio::io_context::executor_type> strand_ =
      boost::asio::make_strand(io_);
  std::thread io_thread_;
  std::shared_ptr<McpSession> session_;
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::vector<json> sent_;
};

TEST_F(McpSessionTest, NothingButPingBeforeInitialize) {
  EXPECT_EQ(Request("1", "tools/list", json::object())["error"]["code"], -32600);
  EXPECT_EQ(Request("2", "ping", json::object())["result"], json::object());
  Initialize();
  EXPECT_TRUE(Request("3", "tools/list", json::object()).contains("result"));
}

TEST_F(McpSessionTest, InitializeReportsIdentityAndNegotiatesTheVersion) {
  json reply = Request("1", "initialize",
                       {{"protocolVersion", "2024-11-05"}, {"capabilities", json::object()}});
  EXPECT_EQ(reply["result"]["protocolVersion"], "2024-11-05");
  EXPECT_EQ(reply["result"]["serverInfo"]["name"], "labgate");
  EXPECT_EQ(reply["result"]["instructions"], "test instructions");
  EXPECT_TRUE(reply["result"]["capabilities"].contains("tools"));
  json unknown = Request("2", "initialize", {{"protocolVersion", "3000-01-01"}});
  EXPECT_EQ(unknown["result"]["protocolVersion"], "2025-11-25");
  EXPECT_EQ(Request("3", "initialize", json::object())["error"]["code"], -32602);
}

TEST_F(McpSessionTest, ToolCallReturnsStructuredContentAndTheSameJsonAsText) {
  Initialize();
  json reply = Request(
      "7", "tools/call",
      {{"name", "do_everything"}, {"arguments", {{"port_name", "loop://"}, {"data_bits", "8"}}}});
  const json& result = reply["result"];
  EXPECT_EQ(result["isError"], false);
  EXPECT_EQ(result["structuredContent"]["port_name"], "loop://");
  EXPECT_EQ(result["structuredContent"]["data_bits"], "eight");
  EXPECT_EQ(result["structuredContent"]["baud_rate"], 0);  // defaults included
  EXPECT_EQ(json::parse(result["content"][0]["text"].get<std::string>()),
            result["structuredContent"]);
}

TEST_F(McpSessionTest, MissingArgumentsMeanAnEmptyObject) {
  Initialize();
  json reply = Request("1", "tools/call", {{"name", "recurse"}});
  EXPECT_EQ(reply["result"]["isError"], false);
  EXPECT_EQ(reply["result"]["structuredContent"]["name"], "");
}

TEST_F(McpSessionTest, FailuresAreToolErrorsAndProtocolMistakesAreJsonRpcErrors) {
  Initialize();
  json failed = Request("1", "tools/call",
                        {{"name", "do_everything"}, {"arguments", {{"port_name", "fail"}}}});
  EXPECT_EQ(failed["result"]["isError"], true);
  EXPECT_EQ(failed["result"]["content"][0]["text"], "NOT_FOUND: no device at fail");
  EXPECT_FALSE(failed["result"].contains("structuredContent"));

  json bad_args =
      Request("2", "tools/call", {{"name", "do_everything"}, {"arguments", {{"colour", "red"}}}});
  EXPECT_EQ(bad_args["result"]["isError"], true);
  EXPECT_THAT(bad_args["result"]["content"][0]["text"].get<std::string>(),
              HasSubstr("unknown field 'colour'"));

  EXPECT_EQ(Request("3", "tools/call", {{"name", "nope"}})["error"]["code"], -32602);
  EXPECT_EQ(Request("4", "tools/call", json::object())["error"]["code"], -32602);
  EXPECT_EQ(Request("5", "tools/call",
                    {{"name", "recurse"}, {"arguments", json::array()}})["error"]["code"],
            -32602);
  EXPECT_EQ(Request("6", "no/such/method", json::object())["error"]["code"], -32601);
}

TEST_F(McpSessionTest, CancelledCallIsAbandonedAndItsReplySuppressed) {
  Initialize();
  Send(
      R"({"jsonrpc":"2.0","id":"slow-1","method":"tools/call","params":{"name":"do_everything","arguments":{"port_name":"slow"}}})");
  for (int i = 0; i < 500 && service_.started_slow.load() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ASSERT_EQ(service_.started_slow.load(), 1);
  Send(
      R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow-1","reason":"user"}})");
  for (int i = 0; i < 1000 && service_.cancelled.load() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_EQ(service_.cancelled.load(), 1) << "the gRPC call was cancelled";
  EXPECT_TRUE(Request("\"after\"", "ping", json::object()).contains("result"));
  EXPECT_TRUE(WaitFor("slow-1", std::chrono::milliseconds(300)).is_null())
      << "no reply to a cancelled request";
  // The id is free again once the cancelled call has completed.
  json again = Request("\"slow-1\"", "ping", json::object());
  EXPECT_TRUE(again.contains("result")) << again.dump();
}

TEST_F(McpSessionTest, AnIdAlreadyInFlightIsRefused) {
  Initialize();
  Send(
      R"({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"do_everything","arguments":{"port_name":"slow"}}})");
  for (int i = 0; i < 5000 && service_.started_slow.load() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ASSERT_EQ(service_.started_slow.load(), 1);
  json duplicate = Request("9", "ping", json::object());
  ASSERT_TRUE(duplicate.contains("error")) << duplicate.dump();
  EXPECT_EQ(duplicate["error"]["code"], -32600) << duplicate.dump();
  EXPECT_THAT(duplicate["error"]["message"].get<std::string>(), HasSubstr("already in use"));
  EXPECT_EQ(service_.cancelled.load(), 0) << "the first call is still held";
}

TEST_F(McpSessionTest, PipelinedCallsAreEachAnsweredExactlyOnce) {
  Initialize();
  constexpr int kCalls = 100;
  for (int i = 0; i < kCalls; ++i) {
    Send(json({{"jsonrpc", "2.0"},
               {"id", 1000 + i},
               {"method", "tools/call"},
               {"params", {{"name", "recurse"}, {"arguments", {{"name", std::to_string(i)}}}}}})
             .dump());
  }
  for (int i = 0; i < kCalls; ++i) {
    json reply = WaitFor(1000 + i);
    ASSERT_FALSE(reply.is_null()) << i;
    EXPECT_EQ(reply["result"]["structuredContent"]["name"], std::to_string(i));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  for (int i = 0; i < kCalls; ++i) EXPECT_EQ(CountWithId(1000 + i), 0u);
}

}  // namespace
}  // namespace labgate::gateway
