// LoafConnection against a real session service on an in-process channel: replies, -32602
// data, id null, notifications ignored, and events for appends by the connection and by a
// direct gRPC client.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <vector>

#include "common/service_host.h"
#include "gateway/dialects/loaf/loaf_dialect.h"
#include "session-service/session_service.h"

namespace labgate::gateway::loaf {
namespace {

using nlohmann::json;
namespace pb = labgate::session::v1;

// Everything the connection wrote: replies and events, in order.
class Wire {
 public:
  void Add(const std::string& payload) {
    std::lock_guard<std::mutex> lock(mutex_);
    messages_.push_back(json::parse(payload));
    changed_.notify_all();
  }
  // The first message matching `match`, waiting up to 10 s (null when none came).
  template <typename Match>
  json Await(Match match) {
    std::unique_lock<std::mutex> lock(mutex_);
    json found;
    changed_.wait_for(lock, std::chrono::seconds(10), [&] {
      for (const auto& message : messages_) {
        if (match(message)) {
          found = message;
          return true;
        }
      }
      return false;
    });
    return found;
  }
  json Reply(const json& id) {
    return Await([&](const json& m) { return m.contains("id") && m["id"] == id; });
  }
  size_t size() {
    std::lock_guard<std::mutex> lock(mutex_);
    return messages_.size();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<json> messages_;
};

class LoafConnectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "labgate-loaf-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    data_dir_ = pattern;
    auto service = labgate::session::CreateSessionService({data_dir_});
    ASSERT_TRUE(service.ok()) << service.status();
    service_ = std::move(*service);
    auto host = ServiceHost::Start("", {service_.get()});
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = std::move(*host);
    dialect_ = std::make_unique<LoafDialect>(host_->InProcessChannel(), std::chrono::seconds(10));
    dialect_->OnShutdown([this](const std::string& reason) { shutdown_reason_ = reason; });
    connection_ = LoafConnection::Create(
        dialect_.get(), std::make_shared<FunctionOutbound>(
                            [this](OutboundMessage message) { wire_.Add(message.payload); }));
    direct_ = pb::SessionService::NewStub(host_->InProcessChannel());
  }
  void TearDown() override {
    connection_->Close();
    service_->FinishWatchStreams();
    host_->Shutdown(std::chrono::seconds(5));
    service_->Shutdown();
    std::error_code ignored;
    std::filesystem::remove_all(data_dir_, ignored);
  }

  // Feeds one line to the connection, as StdioConnection does for a claimed message.
  void Send(const std::string& line) {
    jsonrpc::IncomingMessage message = jsonrpc::ParseMessage(line);
    ReplyOnce reply(message.raw_id,
                    [this](MessageText payload) { wire_.Add(std::move(payload).Join()); });
    connection_->Handle(message, Framing::kNewline, std::move(reply));
  }
  json Call(const std::string& line, const json& id) {
    Send(line);
    return wire_.Reply(id);
  }

  std::string data_dir_;
  std::unique_ptr<labgate::session::SessionGrpcService> service_;
  std::unique_ptr<ServiceHost> host_;
  std::unique_ptr<LoafDialect> dialect_;
  std::shared_ptr<LoafConnection> connection_;
  std::unique_ptr<pb::SessionService::Stub> direct_;
  std::string shutdown_reason_ = "(none)";
  Wire wire_;
};

TEST_F(LoafConnectionTest, HandshakeAndPingNeedNoInitialize) {
  json hello = Call(
      R"({"jsonrpc":"2.0","id":1,"method":"rpc.handshake","params":{"client_name":"t","client_version":"1","protocol_version":"1.0.0","strict":true}})",
      1);
  EXPECT_EQ(hello["result"]["protocol_version"], "1.0.0");
  json mismatch = Call(
      R"({"jsonrpc":"2.0","id":2,"method":"rpc.handshake","params":{"protocol_version":"3.1.0","strict":true}})",
      2);
  EXPECT_EQ(mismatch["error"]["code"], -32602);
  EXPECT_EQ(mismatch["error"]["data"]["field"], "protocol_version");
  EXPECT_TRUE(mismatch["error"]["data"]["reason"].is_string());
  json ping = Call(R"({"jsonrpc":"2.0","id":null,"method":"system.ping"})", nullptr);
  EXPECT_TRUE(ping["id"].is_null());
  EXPECT_EQ(ping["result"]["ok"], true);
}

TEST_F(LoafConnectionTest, UnknownMethodsAreNotFoundAndBadIdsInvalid) {
  json unknown = Call(R"({"jsonrpc":"2.0","id":"u","method":"system.reboot"})", "u");
  EXPECT_EQ(unknown["error"]["code"], -32601);
  json bad_id = Call(R"({"jsonrpc":"2.0","id":true,"method":"system.ping"})", nullptr);
  EXPECT_EQ(bad_id["error"]["code"], -32600);
  EXPECT_EQ(wire_.size(), 2u);
}

TEST_F(LoafConnectionTest, EachMethodValidatesItsParams) {
  struct Case {
    std::string line;
    std::string field;
  };
  const std::vector<Case> cases = {
      {R"({"jsonrpc":"2.0","id":1,"method":"system.ping","params":[]})", "params"},
      {R"({"jsonrpc":"2.0","id":1,"method":"system.shutdown","params":{"reason":5}})", "reason"},
      {R"({"jsonrpc":"2.0","id":1,"method":"session.create","params":{"device_id":1}})",
       "device_id"},
      {R"({"jsonrpc":"2.0","id":1,"method":"session.create","params":{"port_name":[]}})",
       "port_name"},
      {R"({"jsonrpc":"2.0","id":1,"method":"session.get","params":{}})", "session_id"},
      {R"({"jsonrpc":"2.0","id":1,"method":"session.get","params":{"session_id":"nope"}})",
       "session_id"},
      {R"({"jsonrpc":"2.0","id":1,"method":"session.send","params":{"text":"x"}})", "session_id"},
      {R"({"jsonrpc":"2.0","id":1,"method":"session.send","params":{"session_id":"s","text":2}})",
       "text"},
      {R"({"jsonrpc":"2.0","id":1,"method":"session.send","params":{"session_id":"nope","text":"x"}})",
       "session_id"},
  };
  for (const auto& c : cases) {
    Wire wire;
    jsonrpc::IncomingMessage message = jsonrpc::ParseMessage(c.line);
    ReplyOnce reply(message.raw_id,
                    [&wire](MessageText payload) { wire.Add(std::move(payload).Join()); });
    connection_->Handle(message, Framing::kNewline, std::move(reply));
    json answer = wire.Reply(1);
    EXPECT_EQ(answer["error"]["code"], -32602) << c.line;
    EXPECT_EQ(answer["error"]["data"]["field"], c.field) << c.line;
    EXPECT_TRUE(answer["error"]["data"]["reason"].is_string()) << c.line;
  }
  EXPECT_EQ(shutdown_reason_, "(none)");  // the bad shutdown did not shut down
}

TEST_F(LoafConnectionTest, SessionsAndTheirEvents) {
  json created =
      Call(R"({"jsonrpc":"2.0","id":1,"method":"session.create","params":{"device_id":"dmm"}})", 1);
  const std::string id = created["result"]["session_id"].get<std::string>();
  ASSERT_FALSE(id.empty());
  json status = wire_.Await([](const json& m) { return m.value("method", "") == "event"; });
  EXPECT_EQ(status["params"]["type"], "session.status");
  EXPECT_EQ(status["params"]["payload"]["status"], "created");
  EXPECT_EQ(status["params"]["payload"]["session_id"], id);

  json sent = Call(R"({"jsonrpc":"2.0","id":2,"method":"session.send","params":{"session_id":")" +
                       id + R"(","text":"*IDN?"}})",
                   2);
  EXPECT_EQ(sent["result"]["accepted"], true);
  auto appended = [](const std::string& content) {
    return [content](const json& m) {
      return m.value("method", "") == "event" &&
             m["params"]["type"] == "session.message.appended" &&
             m["params"]["payload"]["message"]["content"] == content;
    };
  };
  json own = wire_.Await(appended("*IDN?"));
  ASSERT_FALSE(own.is_null());
  EXPECT_EQ(own["params"]["payload"]["session_id"], id);
  EXPECT_EQ(own["params"]["payload"]["message"]["role"], "user");

  // A direct gRPC client's append reaches the connection too.
  grpc::ClientContext context;
  pb::AppendMessageRequest request;
  request.set_session_id(id);
  request.set_content("reply from the device");
  request.set_role("device");
  pb::AppendMessageResponse response;
  ASSERT_TRUE(direct_->AppendMessage(&context, request, &response).ok());
  EXPECT_FALSE(wire_.Await(appended("reply from the device")).is_null());

  json got = Call(
      R"({"jsonrpc":"2.0","id":3,"method":"session.get","params":{"session_id":")" + id + R"("}})",
      3);
  EXPECT_EQ(got["result"]["id"], id);
  EXPECT_EQ(got["result"]["device_id"], "dmm");

  grpc::ClientContext close_context;
  pb::CloseSessionRequest close;
  close.set_session_id(id);
  pb::CloseSessionResponse closed;
  ASSERT_TRUE(direct_->CloseSession(&close_context, close, &closed).ok());
  json closed_event = wire_.Await([](const json& m) {
    return m.value("method", "") == "event" && m["params"]["type"] == "session.status" &&
           m["params"]["payload"]["status"] == "closed";
  });
  EXPECT_EQ(closed_event["params"]["payload"]["session_id"], id);
}

TEST_F(LoafConnectionTest, ShutdownAnswersThenAsksTheApplication) {
  json bye =
      Call(R"({"jsonrpc":"2.0","id":9,"method":"system.shutdown","params":{"reason":"done"}})", 9);
  EXPECT_EQ(bye["result"]["accepted"], true);
  EXPECT_EQ(shutdown_reason_, "done");
}

}  // namespace
}  // namespace labgate::gateway::loaf
