// StdioConnection routes each message of one stream to its dialect: stateful MCP, the
// stateless 2026 era, loaf rpc and the v0.1 envelope, interleaved and pipelined, in both
// framings. Real parts: pipes for stdin/stdout, in-process session and actions services
// (SQLite in a temp dir), the real dialects. Each reply must answer its request's id, in its
// request's framing, with its dialect's shape.
#include "gateway/server/stdio_connection.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/executor_work_guard.hpp>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "actions-service/actions_service.h"
#include "common/service_host.h"
#include "gateway/core/process_io_context.h"
#include "gateway/transport/frame_decoder.h"
#include "session-service/session_service.h"

namespace labgate::gateway {
namespace {

using nlohmann::json;

struct Reply {
  Framing framing;
  json message;
};

// Everything written to the connection's stdout, decoded frame by frame.
class Output {
 public:
  explicit Output(int fd) : fd_(fd), reader_([this] { Read(); }) {}
  ~Output() { reader_.join(); }  // the write end must be closed first

  // The first frame matching `match`, waiting up to 20 s; nullopt when none came.
  template <typename Match>
  std::optional<Reply> Await(Match match) {
    std::unique_lock<std::mutex> lock(mutex_);
    std::optional<Reply> found;
    changed_.wait_for(lock, std::chrono::seconds(20), [&] {
      for (const Reply& reply : replies_) {
        if (match(reply.message)) {
          found = reply;
          return true;
        }
      }
      return false;
    });
    return found;
  }
  // The reply to JSON-RPC or envelope id `id` (not a notification, not a request).
  std::optional<Reply> To(const json& id) {
    return Await([&](const json& m) {
      return m.is_object() && m.contains("id") && m["id"] == id && !m.contains("method");
    });
  }
  std::vector<Reply> All() {
    std::lock_guard<std::mutex> lock(mutex_);
    return replies_;
  }
  std::vector<std::string> Errors() {
    std::lock_guard<std::mutex> lock(mutex_);
    return errors_;
  }

 private:
  void Read() {
    FrameDecoder decoder(1 << 24);
    auto on_frame = [this](const Frame& frame) {
      std::lock_guard<std::mutex> lock(mutex_);
      json message = json::parse(frame.payload, nullptr, false);
      if (message.is_discarded()) {
        errors_.push_back("not JSON on stdout: " + frame.payload);
      } else {
        replies_.push_back({frame.framing, std::move(message)});
      }
      changed_.notify_all();
    };
    auto on_error = [this](const FrameError& error) {
      std::lock_guard<std::mutex> lock(mutex_);
      errors_.push_back("bad frame on stdout: " + error.message);
    };
    char buffer[65536];
    for (;;) {
      const ssize_t got = read(fd_, buffer, sizeof(buffer));
      if (got <= 0) break;
      decoder.Feed(std::string_view(buffer, static_cast<size_t>(got)), on_frame, on_error);
    }
    decoder.Finish(on_frame, on_error);
  }

  const int fd_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Reply> replies_;
  std::vector<std::string> errors_;
  std::thread reader_;
};

std::string Framed(const json& message, Framing framing) {
  const std::string body = message.dump();
  if (framing == Framing::kNewline) return body + "\n";
  return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

const json kModernMeta = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                          {"io.modelcontextprotocol/clientCapabilities", json::object()}};

class StdioConnectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "labgate-stdio-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    data_dir_ = pattern;
    auto session = labgate::session::CreateSessionService({data_dir_});
    ASSERT_TRUE(session.ok()) << session.status();
    session_ = std::move(*session);
    auto actions = labgate::actions::CreateActionsService({});
    ASSERT_TRUE(actions.ok()) << actions.status();
    actions_ = std::move(*actions);
    auto host = ServiceHost::Start("", {session_.get(), actions_.get()});
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = std::move(*host);

    action_tools_ = std::make_unique<ActionTools>(host_->InProcessChannel());
    action_tools_->Start(/*watch_connectivity=*/false);
    server_.tools = {action_tools_.get()};
    stateless_ =
        std::make_unique<stateless::StatelessDialect>(&server_, stateless::RequestStateCodec());
    loaf_ =
        std::make_unique<loaf::LoafDialect>(host_->InProcessChannel(), std::chrono::seconds(10));
    for (int i = 0; i < 2; ++i) io_threads_.emplace_back([this] { io_.run(); });

    int input[2];
    int output[2];
    ASSERT_EQ(pipe(input), 0);
    ASSERT_EQ(pipe(output), 0);
    write_fd_ = input[1];
    read_end_of_input_ = input[0];
    write_end_of_output_ = output[1];
    output_ = std::make_unique<Output>(output[0]);
    StdioTransport::Options options;
    options.input_fd = input[0];
    options.output_fd = output[1];
    connection_ = std::make_unique<StdioConnection>(
        StdioDialects{&server_, action_tools_.get(), stateless_.get(), loaf_.get()}, io_, options);
    connection_->Start();
  }

  void TearDown() override {
    if (write_fd_ >= 0) close(write_fd_);
    if (connection_) {
      connection_->WaitForEndOfInput();
      connection_->Drain(std::chrono::seconds(5));
      connection_.reset();
    }
    if (write_end_of_output_ >= 0) close(write_end_of_output_);
    output_.reset();  // its reader sees the end of output
    if (read_end_of_input_ >= 0) close(read_end_of_input_);
    loaf_.reset();
    stateless_.reset();
    if (action_tools_) action_tools_->Stop();
    if (session_) session_->FinishWatchStreams();
    if (actions_) actions_->Shutdown();
    if (host_) host_->Shutdown(std::chrono::seconds(5));
    if (session_) session_->Shutdown();
    work_.reset();
    io_.stop();
    for (auto& thread : io_threads_) thread.join();
    action_tools_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(data_dir_, ignored);
  }

  void Write(const std::string& bytes) {
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t wrote = write(write_fd_, bytes.data() + done, bytes.size() - done);
      ASSERT_GT(wrote, 0);
      done += static_cast<size_t>(wrote);
    }
  }

  // Waits for the reply to `id` and checks its framing and, for JSON-RPC, its envelope.
  json ReplyTo(const json& id, Framing framing, bool jsonrpc = true) {
    std::optional<Reply> reply = output_->To(id);
    EXPECT_TRUE(reply.has_value()) << "no reply to " << id.dump();
    if (!reply) return json();
    EXPECT_EQ(reply->framing, framing) << "reply to " << id.dump() << ": " << reply->message;
    if (jsonrpc) {
      EXPECT_EQ(reply->message.value("jsonrpc", ""), "2.0") << reply->message;
      EXPECT_NE(reply->message.contains("result"), reply->message.contains("error"))
          << "exactly one of result and error: " << reply->message;
    } else {
      EXPECT_FALSE(reply->message.contains("jsonrpc")) << reply->message;
    }
    return reply->message;
  }

  std::string data_dir_;
  std::unique_ptr<labgate::session::SessionGrpcService> session_;
  std::unique_ptr<labgate::actions::ActionsGrpcService> actions_;
  std::unique_ptr<ServiceHost> host_;
  std::unique_ptr<ActionTools> action_tools_;
  McpServer server_;
  std::unique_ptr<stateless::StatelessDialect> stateless_;
  std::unique_ptr<loaf::LoafDialect> loaf_;
  // gRPC's threads may still hand it work after the test (see ProcessLifetimeIoContext).
  boost::asio::io_context& io_ = ProcessLifetimeIoContext();
  std::unique_ptr<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work_ =
      std::make_unique<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>>(
          boost::asio::make_work_guard(io_));
  std::vector<std::thread> io_threads_;
  int write_fd_ = -1;
  int read_end_of_input_ = -1;
  int write_end_of_output_ = -1;
  std::unique_ptr<Output> output_;
  std::unique_ptr<StdioConnection> connection_;
};

TEST_F(StdioConnectionTest, InterleavedDialectsAreEachAnsweredInTheirOwnShapeAndFraming) {
  constexpr Framing kLine = Framing::kNewline;
  constexpr Framing kHeader = Framing::kContentLength;
  // Before initialize: loaf and the envelope need none; MCP's tools/list must wait for it.
  Write(Framed({{"jsonrpc", "2.0"}, {"id", "loaf-ping"}, {"method", "system.ping"}}, kLine) +
        Framed({{"id", "env-list"}, {"type", "list_actions"}}, kHeader) +
        Framed({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/list"}}, kLine));
  json ping = ReplyTo("loaf-ping", kLine);
  EXPECT_EQ(ping["result"]["ok"], true);
  EXPECT_TRUE(ping["result"]["time"].is_string());
  json listed = ReplyTo("env-list", kHeader, /*jsonrpc=*/false);
  EXPECT_EQ(listed["ok"], true);
  ASSERT_TRUE(listed["data"].is_array());
  EXPECT_FALSE(listed["data"].empty());
  EXPECT_TRUE(listed["data"][0].contains("safetyBoundary")) << listed;
  json early = ReplyTo(1, kLine);
  EXPECT_EQ(early["error"]["code"], -32600) << early;

  // Pipelined in one write, framings alternating: every dialect at once.
  const json init_params = {{"protocolVersion", "2025-11-25"},
                            {"capabilities", json::object()},
                            {"clientInfo", {{"name", "unit"}, {"version", "1"}}}};
  Write(Framed({{"jsonrpc", "2.0"}, {"id", 2}, {"method", "initialize"}, {"params", init_params}},
               kHeader) +
        Framed({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}, kHeader) +
        Framed({{"jsonrpc", "2.0"},
                {"id", "hello"},
                {"method", "rpc.handshake"},
                {"params",
                 {{"client_name", "unit"},
                  {"client_version", "1"},
                  {"protocol_version", "1.0.0"},
                  {"strict", true}}}},
               kLine) +
        Framed({{"jsonrpc", "2.0"},
                {"id", "discover"},
                {"method", "server/discover"},
                {"params", {{"_meta", kModernMeta}}}},
               kHeader) +
        Framed({{"id", "env-bad"}, {"type", "invoke"}, {"payload", {{"action", ""}}}}, kLine) +
        Framed({{"jsonrpc", "2.0"},
                {"id", "create"},
                {"method", "session.create"},
                {"params", {{"device_id", "mixed"}}}},
               kHeader) +
        Framed({{"jsonrpc", "2.0"}, {"id", nullptr}, {"method", "system.ping"}}, kLine) +
        Framed({{"jsonrpc", "2.0"},
                {"id", "modern-tools"},
                {"method", "tools/list"},
                {"params", {{"_meta", kModernMeta}}}},
               kLine) +
        Framed({{"jsonrpc", "2.0"}, {"id", "loaf-unknown"}, {"method", "system.reboot"}}, kHeader));

  json init = ReplyTo(2, kHeader);
  EXPECT_EQ(init["result"]["protocolVersion"], "2025-11-25") << init;
  EXPECT_EQ(init["result"]["serverInfo"]["name"], "labgate") << init;

  json hello = ReplyTo("hello", kLine);
  EXPECT_EQ(hello["result"]["protocol_version"], "1.0.0") << hello;
  EXPECT_EQ(hello["result"]["server_name"], "labgate") << hello;
  EXPECT_TRUE(hello["result"]["methods"].is_array()) << hello;

  json discover = ReplyTo("discover", kHeader);
  const json versions = discover["result"].value("supportedVersions", json::array());
  EXPECT_NE(std::find(versions.begin(), versions.end(), "2026-07-28"), versions.end()) << discover;

  json bad = ReplyTo("env-bad", kLine, /*jsonrpc=*/false);
  EXPECT_EQ(bad["ok"], false);
  EXPECT_EQ(bad["error"], "Invalid invoke payload") << bad;

  json created = ReplyTo("create", kHeader);
  ASSERT_TRUE(created["result"]["session_id"].is_string()) << created;
  const std::string session_id = created["result"]["session_id"];

  json null_id = ReplyTo(nullptr, kLine);
  EXPECT_EQ(null_id["result"]["ok"], true) << null_id;

  json modern = ReplyTo("modern-tools", kLine);
  ASSERT_TRUE(modern["result"]["tools"].is_array()) << modern;
  EXPECT_FALSE(modern["result"]["tools"].empty());

  json unknown = ReplyTo("loaf-unknown", kHeader);
  EXPECT_EQ(unknown["error"]["code"], -32601) << unknown;

  // Now that the session is initialized, the stateful era answers; loaf still does too, and
  // the session created through loaf gets its event notification.
  Write(Framed({{"jsonrpc", "2.0"}, {"id", 3}, {"method", "tools/list"}}, kHeader) +
        Framed({{"jsonrpc", "2.0"},
                {"id", "send"},
                {"method", "session.send"},
                {"params", {{"session_id", session_id}, {"text", "hello"}}}},
               kLine) +
        Framed({{"id", "env-list-2"}, {"type", "list_actions"}}, kLine));
  json tools = ReplyTo(3, kHeader);
  ASSERT_TRUE(tools["result"]["tools"].is_array()) << tools;
  EXPECT_EQ(tools["result"]["tools"].size(), modern["result"]["tools"].size());
  json sent = ReplyTo("send", kLine);
  EXPECT_EQ(sent["result"]["accepted"], true) << sent;
  EXPECT_EQ(ReplyTo("env-list-2", kLine, /*jsonrpc=*/false)["ok"], true);
  std::optional<Reply> event = output_->Await([&](const json& m) {
    return m.value("method", "") == "event" &&
           m["params"].value("type", "") == "session.message.appended";
  });
  if (!event.has_value()) {
    ADD_FAILURE() << "no session.message.appended event";
    return;
  }
  EXPECT_FALSE(event->message.contains("id"));
  EXPECT_EQ(event->message["params"]["payload"]["session_id"], session_id);

  // Each request was answered exactly once, and stdout held nothing but protocol messages.
  std::map<std::string, int> answers;
  for (const Reply& reply : output_->All()) {
    if (reply.message.contains("id") && !reply.message.contains("method")) {
      ++answers[reply.message["id"].dump()];
    }
  }
  for (const auto& [id, count] : answers) EXPECT_EQ(count, 1) << "answers to " << id;
  EXPECT_EQ(answers.size(), 14u);
  EXPECT_TRUE(output_->Errors().empty()) << output_->Errors().front();
}

}  // namespace
}  // namespace labgate::gateway
