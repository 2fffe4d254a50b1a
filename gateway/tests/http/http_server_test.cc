// The Streamable HTTP transport against a real server on 127.0.0.1 port 0, driven by a
// raw-socket HTTP/1.1 client: session lifecycle, status codes, SSE framing, resumption
// with Last-Event-ID, Origin/Host/auth checks, limits, a slowloris client, and a client
// that leaves in the middle of a call.
#include "gateway/http/http_server.h"

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "gateway/mcp/mcp_server.h"
#include "gateway/mcp/providers.h"
#include "gateway/tests/drain_io.h"

namespace labgate::gateway::http {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using namespace std::chrono_literals;

// Tools: "echo" answers at once; "hold" answers when the test releases it; "progress"
// sends a progress notice first (so its POST turns into an SSE stream) and then holds;
// "poll" closes its stream (RequestContext::CloseStream) and then holds.
class TestTools final : public ToolProvider {
 public:
  std::vector<json> ListTools() const override {
    std::vector<json> tools;
    for (const char* name : {"echo", "hold", "progress", "poll", "ask"}) {
      tools.push_back(
          {{"name", name}, {"description", "test tool"}, {"inputSchema", {{"type", "object"}}}});
    }
    return tools;
  }
  bool HasTool(const std::string& name) const override {
    return name == "echo" || name == "hold" || name == "progress" || name == "poll" ||
           name == "ask";
  }
  void CallTool(const std::string& name, const json& arguments,
                std::shared_ptr<RequestContext> context, ToolDone done) override {
    json result = {{"content", json::array({{{"type", "text"}, {"text", arguments.dump()}}})}};
    if (name == "echo") {
      echoes++;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        echo_threads_.push_back(std::this_thread::get_id());
      }
      return done(result);
    }
    if (name == "ask") {  // asks the person first (input_required in the 2026 era)
      return context->AskClient(
          "confirm", "elicitation/create",
          {{"message", "Go ahead?"},
           {"requestedSchema",
            {{"type", "object"}, {"properties", {{"ok", {{"type", "boolean"}}}}}}}},
          10s, [done, result](absl::StatusOr<json> answer) {
            if (!answer.ok()) return done(answer.status());
            done(result);
          });
    }
    if (name == "progress") context->Progress(1, 2, "halfway");
    if (name == "poll") context->CloseStream();
    context->OnCancel([this] { cancelled++; });
    std::lock_guard<std::mutex> lock(mutex_);
    held_.push_back([done, result] { done(result); });
    held_changed_.notify_all();
  }
  // Waits for a held call and finishes it.
  bool ReleaseOne() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!held_changed_.wait_for(lock, 10s, [this] { return !held_.empty(); })) return false;
    auto finish = std::move(held_.front());
    held_.erase(held_.begin());
    lock.unlock();
    finish();
    return true;
  }
  std::vector<std::thread::id> echo_threads() {
    std::lock_guard<std::mutex> lock(mutex_);
    return echo_threads_;
  }
  std::atomic<int> cancelled{0};
  std::atomic<int> echoes{0};

 private:
  std::mutex mutex_;
  std::condition_variable held_changed_;
  std::vector<std::function<void()>> held_;
  std::vector<std::thread::id> echo_threads_;
};

struct Response {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
  json Json() const { return json::parse(body, nullptr, false); }
};

struct Event {
  std::string id;
  std::string data;
  std::optional<int> retry;
};

// A blocking HTTP/1.1 client on a raw socket; every read gives up after 10 s.
class RawClient {
 public:
  // `receive_buffer` > 0 shrinks the socket's receive buffer (a client that reads little).
  explicit RawClient(uint16_t port, int receive_buffer = 0) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    timeval timeout{10, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    if (receive_buffer > 0) {
      ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof(receive_buffer));
    }
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
  }
  ~RawClient() { Close(); }
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  bool connected() const { return connected_; }

  bool Send(const std::string& data) {
    size_t sent = 0;
    while (sent < data.size()) {
      ssize_t n = ::send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<size_t>(n);
    }
    return true;
  }

  // True when the server closed the connection (reads EOF or reset).
  bool WaitForClose() {
    char scratch[4096];
    while (true) {
      ssize_t n = ::recv(fd_, scratch, sizeof(scratch), 0);
      if (n == 0) return true;
      if (n < 0) return errno == ECONNRESET;
      buffer_.append(scratch, static_cast<size_t>(n));
    }
  }

  std::optional<Response> ReadHead() {
    size_t end;
    while ((end = buffer_.find("\r\n\r\n")) == std::string::npos) {
      if (!Fill()) return std::nullopt;
    }
    std::string head = buffer_.substr(0, end);
    buffer_.erase(0, end + 4);
    Response response;
    response.status = std::stoi(head.substr(9, 3));
    size_t line_start = head.find("\r\n");
    while (line_start != std::string::npos) {
      line_start += 2;
      size_t line_end = head.find("\r\n", line_start);
      std::string line = head.substr(line_start, line_end - line_start);
      size_t colon = line.find(':');
      if (colon != std::string::npos) {
        std::string name = line.substr(0, colon);
        for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        response.headers[name] = line.substr(line.find_first_not_of(' ', colon + 1));
      }
      line_start = line_end;
    }
    chunked_ = response.header("transfer-encoding") == "chunked";
    ended_ = false;
    return response;
  }

  // A complete response (Content-Length bodies; chunked ones read to their end).
  std::optional<Response> Read() {
    auto response = ReadHead();
    if (!response) return std::nullopt;
    if (chunked_) {
      while (!ended_) {
        if (!ReadChunk()) return std::nullopt;
      }
      response->body = std::move(stream_);
      stream_.clear();
      return response;
    }
    size_t length = std::stoul(
        response->header("content-length").empty() ? "0" : response->header("content-length"));
    while (buffer_.size() < length) {
      if (!Fill()) return std::nullopt;
    }
    response->body = buffer_.substr(0, length);
    buffer_.erase(0, length);
    return response;
  }

  // Next SSE event of a chunked event-stream body; nullopt at its end (or on error).
  std::optional<Event> NextEvent() {
    size_t end;
    while ((end = stream_.find("\n\n")) == std::string::npos) {
      if (ended_ || !ReadChunk()) return std::nullopt;
    }
    std::string block = stream_.substr(0, end);
    stream_.erase(0, end + 2);
    if (block.rfind(":", 0) == 0) return NextEvent();  // a keep-alive comment
    Event event;
    size_t start = 0;
    while (start <= block.size()) {
      size_t line_end = block.find('\n', start);
      std::string line = block.substr(start, line_end - start);
      if (line.rfind("id: ", 0) == 0) event.id = line.substr(4);
      if (line.rfind("data: ", 0) == 0) event.data += line.substr(6);
      if (line.rfind("retry: ", 0) == 0) event.retry = std::stoi(line.substr(7));
      if (line_end == std::string::npos) break;
      start = line_end + 1;
    }
    return event;
  }
  bool stream_ended() const { return ended_; }

 private:
  bool Fill() {
    char scratch[65536];
    ssize_t n = ::recv(fd_, scratch, sizeof(scratch), 0);
    if (n <= 0) return false;
    buffer_.append(scratch, static_cast<size_t>(n));
    return true;
  }
  bool ReadChunk() {
    size_t line_end;
    while ((line_end = buffer_.find("\r\n")) == std::string::npos) {
      if (!Fill()) return false;
    }
    size_t size = std::stoul(buffer_.substr(0, line_end), nullptr, 16);
    while (buffer_.size() < line_end + 2 + size + 2) {
      if (!Fill()) return false;
    }
    stream_ += buffer_.substr(line_end + 2, size);
    buffer_.erase(0, line_end + 2 + size + 2);
    if (size == 0) ended_ = true;
    return true;
  }

  int fd_ = -1;
  bool connected_ = false;
  std::string buffer_;
  std::string stream_;
  bool chunked_ = false;
  bool ended_ = false;
};

std::string Request(const std::string& method, const std::string& session, const std::string& body,
                    const std::vector<std::string>& extra = {},
                    const std::string& target = "/mcp") {
  std::string text = method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  bool has_accept = false;
  for (const auto& header : extra) has_accept |= header.rfind("Accept:", 0) == 0;
  if (!has_accept) {
    text += method == "GET" ? "Accept: text/event-stream\r\n"
                            : "Accept: application/json, text/event-stream\r\n";
  }
  if (!session.empty()) text += "Mcp-Session-Id: " + session + "\r\n";
  for (const auto& header : extra) text += header + "\r\n";
  if (method == "POST") {
    text +=
        "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  }
  return text + "\r\n" + body;
}

std::string Call(const std::string& id, const std::string& method, const json& params = nullptr) {
  json message = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null()) message["params"] = params;
  return message.dump();
}

class HttpServerTest : public ::testing::Test {
 protected:
  stateless::StatelessDialect stateless_{&server_, stateless::RequestStateCodec()};

  void SetUp() override {
    server_.config.instructions = "test";
    server_.tools = {&tools_};
    for (int i = 0; i < 2; ++i) threads_.emplace_back([this] { io_.run(); });
  }
  void TearDown() override {
    if (http_) http_->Stop();
    http_.reset();
    work_.reset();
    gateway::testing::DrainThenStop(io_);
    for (auto& thread : threads_) thread.join();
    // After the server, whose connections may live on them (an assertion may end a test early).
    for (auto& context : extra_contexts_) context->Stop();
  }
  // An io_context run by one thread of its own, as each of labgate's --io-threads is.
  struct OneThreadContext {
    OneThreadContext() : thread([this] { io.run(); }) {}
    void Stop() {
      work.reset();
      gateway::testing::DrainThenStop(io);  // as io_ is: a handler left unrun can leak a cycle
      if (thread.joinable()) thread.join();
    }
    boost::asio::io_context io;
    boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work =
        boost::asio::make_work_guard(io);
    std::thread thread;
  };
  std::vector<std::unique_ptr<OneThreadContext>> extra_contexts_;
  void StartServer(HttpOptions options = {}, ReadinessProbe probe = nullptr) {
    options.port = 0;
    http_ = std::make_unique<HttpServer>(io_, &server_, options, std::move(probe), &stateless_);
    ASSERT_TRUE(http_->Start().ok());
    port_ = http_->port();
  }
  Response Exchange(const std::string& request) {
    RawClient client(port_);
    EXPECT_TRUE(client.Send(request));
    auto response = client.Read();
    EXPECT_TRUE(response.has_value());
    return response.value_or(Response{});
  }
  // Waits (up to 10 s) until the server counts exactly `count` open connections.
  bool WaitForConnections(size_t count) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (http_->connection_count() != count && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(5ms);
    }
    return http_->connection_count() == count;
  }
  // initialize + notifications/initialized; returns the session id.
  std::string Initialize(const std::string& version = "2025-11-25") {
    Response init = Exchange(Request("POST", "",
                                     Call("init", "initialize",
                                          {{"protocolVersion", version},
                                           {"capabilities", json::object()},
                                           {"clientInfo", {{"name", "t"}, {"version", "1"}}}})));
    EXPECT_EQ(init.status, 200);
    std::string session = init.header("mcp-session-id");
    Response initialized = Exchange(
        Request("POST", session, R"({"jsonrpc":"2.0","method":"notifications/initialized"})"));
    EXPECT_EQ(initialized.status, 202);
    return session;
  }

  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_ =
      boost::asio::make_work_guard(io_);
  std::vector<std::thread> threads_;
  TestTools tools_;
  McpServer server_;
  std::unique_ptr<HttpServer> http_;
  uint16_t port_ = 0;
};

TEST_F(HttpServerTest, InitializeIssuesASessionAndAnswersJson) {
  StartServer();
  Response init = Exchange(Request("POST", "",
                                   Call("1", "initialize",
                                        {{"protocolVersion", "2025-06-18"},
                                         {"capabilities", json::object()},
                                         {"clientInfo", {{"name", "t"}, {"version", "1"}}}})));
  EXPECT_EQ(init.status, 200);
  EXPECT_THAT(init.header("content-type"), StartsWith("application/json"));
  EXPECT_EQ(init.header("mcp-session-id").size(), 64u);
  EXPECT_EQ(init.Json()["result"]["protocolVersion"], "2025-06-18");
  EXPECT_EQ(init.Json()["id"], "1");
}

TEST_F(HttpServerTest, ConnectionsAreSpreadOverTheirContextsAndStayOnTheirThread) {
  // Two io_contexts of one thread each, as labgate's --io-threads 2 gives.
  auto& first = *extra_contexts_.emplace_back(std::make_unique<OneThreadContext>());
  auto& second = *extra_contexts_.emplace_back(std::make_unique<OneThreadContext>());
  HttpOptions options;
  options.port = 0;
  http_ = std::make_unique<HttpServer>(io_, &server_, options, nullptr, &stateless_);
  http_->SetConnectionContexts({&first.io, &second.io});
  ASSERT_TRUE(http_->Start().ok());
  port_ = http_->port();

  // Each client keeps one connection for its whole session.
  for (int client_index = 0; client_index < 2; ++client_index) {
    RawClient client(port_);
    ASSERT_TRUE(client.Send(Request("POST", "",
                                    Call("init", "initialize",
                                         {{"protocolVersion", "2025-11-25"},
                                          {"capabilities", json::object()},
                                          {"clientInfo", {{"name", "t"}, {"version", "1"}}}}))));
    const std::string session = client.Read().value_or(Response{}).header("mcp-session-id");
    ASSERT_FALSE(session.empty());
    ASSERT_TRUE(client.Send(
        Request("POST", session, R"({"jsonrpc":"2.0","method":"notifications/initialized"})")));
    ASSERT_TRUE(client.Read().has_value());
    for (int call = 0; call < 3; ++call) {
      ASSERT_TRUE(client.Send(
          Request("POST", session, Call("e", "tools/call", {{"name", "echo"}, {"arguments", {}}}),
                  {"MCP-Protocol-Version: 2025-11-25"})));
      EXPECT_EQ(client.Read().value_or(Response{}).status, 200);
    }
  }
  const std::vector<std::thread::id> threads = tools_.echo_threads();
  ASSERT_EQ(threads.size(), 6u);
  // The first client's calls all ran on one context's thread, the second's on the other's.
  EXPECT_EQ(threads[0], threads[1]);
  EXPECT_EQ(threads[0], threads[2]);
  EXPECT_EQ(threads[3], threads[4]);
  EXPECT_EQ(threads[3], threads[5]);
  EXPECT_NE(threads[0], threads[3]);
  for (const std::thread::id& id : threads) {
    EXPECT_TRUE(id == first.thread.get_id() || id == second.thread.get_id());
  }
}

TEST_F(HttpServerTest, SessionLifecycle) {
  StartServer();
  std::string session = Initialize();
  Response list = Exchange(
      Request("POST", session, Call("l", "tools/list"), {"MCP-Protocol-Version: 2025-11-25"}));
  EXPECT_EQ(list.status, 200);
  EXPECT_EQ(list.Json()["result"]["tools"].size(), 5u);
  EXPECT_EQ(list.header("mcp-session-id"), session);

  Response missing = Exchange(Request("POST", "", Call("m", "tools/list")));
  EXPECT_EQ(missing.status, 400);
  EXPECT_EQ(missing.Json()["error"]["code"], -32600);
  EXPECT_EQ(missing.Json()["id"], "m");
  Response unknown = Exchange(Request("POST", std::string(64, 'a'), Call("u", "tools/list")));
  EXPECT_EQ(unknown.status, 404);
  // GET and DELETE exist only for stateful sessions (the 2026 era has neither).
  Response get = Exchange(Request("GET", "", ""));
  EXPECT_EQ(get.status, 405);
  EXPECT_EQ(get.Json()["error"]["code"], -32600);
  EXPECT_EQ(Exchange(Request("DELETE", "", "")).status, 405);

  EXPECT_EQ(Exchange(Request("DELETE", session, "")).status, 200);
  EXPECT_EQ(Exchange(Request("POST", session, Call("after", "ping"))).status, 404);
  EXPECT_EQ(Exchange(Request("DELETE", session, "")).status, 404);
  EXPECT_EQ(http_->session_count(), 0u);
}

TEST_F(HttpServerTest, StatusCodesForBadRequests) {
  StartServer();
  std::string session = Initialize();
  auto post = [&](const std::string& body, std::vector<std::string> extra = {}) {
    return Exchange(Request("POST", session, body, extra));
  };
  EXPECT_EQ(post(Call("a", "ping"), {"Accept: application/json"}).status, 406);
  EXPECT_EQ(post(Call("a", "ping"), {"Accept: text/event-stream"}).status, 406);
  EXPECT_EQ(Exchange(Request("GET", session, "", {"Accept: application/json"})).status, 406);
  EXPECT_EQ(post(Call("v", "ping"), {"MCP-Protocol-Version: 1999-01-01"}).status, 400);
  EXPECT_EQ(post(Call("v", "ping"), {"MCP-Protocol-Version: 2025-03-26"}).status, 200);

  Response batch = post(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])");
  EXPECT_EQ(batch.status, 400);
  EXPECT_EQ(batch.Json()["error"]["code"], -32600);
  Response garbage = post("hello there");
  EXPECT_EQ(garbage.status, 400);
  EXPECT_EQ(garbage.Json()["error"]["code"], -32700);
  Response unknown = post(Call("um", "no/such"));
  EXPECT_EQ(unknown.status, 200);
  EXPECT_EQ(unknown.Json()["error"]["code"], -32601);

  std::string plain = Request("POST", session, Call("ct", "ping"));
  plain.replace(plain.find("application/json\r\nContent-Length"), 16, "text/plain");
  EXPECT_EQ(Exchange(plain).status, 415);
  EXPECT_EQ(Exchange(Request("PUT", session, "")).status, 405);
  EXPECT_EQ(Exchange(Request("GET", "", "", {}, "/nowhere")).status, 404);
  // POST / is the same endpoint as /mcp.
  Response root = Exchange(Request("POST", session, Call("r", "ping"), {}, "/"));
  EXPECT_EQ(root.status, 200);
  EXPECT_EQ(root.Json()["result"], json::object());
}

TEST_F(HttpServerTest, KeepAliveServesSeveralRequestsOnOneConnection) {
  StartServer();
  std::string session = Initialize();
  RawClient client(port_);
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(client.Send(Request("POST", session, Call(std::to_string(i), "ping"))));
    auto response = client.Read();
    ASSERT_TRUE(response.has_value());
    EXPECT_EQ(response->Json()["id"], std::to_string(i));
  }
}

TEST_F(HttpServerTest, ACachedToolListGoesOutWholeEachTimeAndPipelined) {
  // The cached list is written as a piece of its own, after each reply's own head; every
  // reply must still read as one whole JSON-RPC message with its own id.
  StartServer();
  std::string session = Initialize();
  RawClient client(port_);
  json first_result;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(
        client.Send(Request("POST", session, Call("list-" + std::to_string(i), "tools/list"))));
    auto response = client.Read();
    ASSERT_TRUE(response.has_value());
    EXPECT_EQ(response->header("content-length"), std::to_string(response->body.size()));
    json answer = response->Json();
    ASSERT_TRUE(answer.is_object()) << response->body;
    EXPECT_EQ(answer["id"], "list-" + std::to_string(i));
    EXPECT_EQ(answer["result"]["tools"].size(), 5u);
    if (i == 0) first_result = answer["result"];
    EXPECT_EQ(answer["result"], first_result);
  }
  // Two requests in one write: the second reply queues behind the first.
  ASSERT_TRUE(client.Send(Request("POST", session, Call("a", "tools/list")) +
                          Request("POST", session, Call("b", "tools/list"))));
  for (const char* id : {"a", "b"}) {
    auto response = client.Read();
    ASSERT_TRUE(response.has_value());
    json answer = response->Json();
    ASSERT_TRUE(answer.is_object()) << response->body;
    EXPECT_EQ(answer["id"], id);
    EXPECT_EQ(answer["result"], first_result);
  }
}

TEST_F(HttpServerTest, ForeignOriginAndHostAreRefused) {
  StartServer();
  Response origin =
      Exchange(Request("POST", "", Call("1", "ping"), {"Origin: http://evil.example.com"}));
  EXPECT_EQ(origin.status, 403);
  std::string host = Request("POST", "", Call("1", "ping"));
  host.replace(host.find("Host: 127.0.0.1"), 15, "Host: evil.example.com");
  EXPECT_EQ(Exchange(host).status, 403);
  std::string local = Request("POST", "",
                              Call("1", "initialize",
                                   {{"protocolVersion", "2025-11-25"},
                                    {"capabilities", json::object()},
                                    {"clientInfo", {{"name", "t"}, {"version", "1"}}}}),
                              {"Origin: http://localhost:5173"});
  local.replace(local.find("Host: 127.0.0.1"), 15, "Host: localhost:1234");
  EXPECT_EQ(Exchange(local).status, 200);
  // Health checks are not MCP and carry no data: any Host may ask.
  std::string health = Request("GET", "", "", {}, "/health");
  health.replace(health.find("Host: 127.0.0.1"), 15, "Host: container-name");
  EXPECT_EQ(Exchange(health).status, 200);
}

TEST_F(HttpServerTest, BrowserPagesFromAllowedOriginsGetCorsHeaders) {
  HttpOptions options;
  options.auth_tokens = {{"ops", "s3cret"}};
  StartServer(options);
  const std::string page = "Origin: http://localhost:6274";
  // The preflight: no credentials, so no token needed; it names what the client may send.
  Response preflight = Exchange(Request("OPTIONS", "", "",
                                        {page, "Access-Control-Request-Method: POST",
                                         "Access-Control-Request-Headers: content-type, "
                                         "mcp-session-id, authorization"}));
  EXPECT_EQ(preflight.status, 204);
  EXPECT_EQ(preflight.header("access-control-allow-origin"), "http://localhost:6274");
  EXPECT_THAT(preflight.header("access-control-allow-methods"), HasSubstr("POST"));
  EXPECT_THAT(preflight.header("access-control-allow-methods"), HasSubstr("DELETE"));
  for (const char* name : {"Content-Type", "Authorization", "Mcp-Session-Id",
                           "MCP-Protocol-Version", "Last-Event-ID"}) {
    EXPECT_THAT(preflight.header("access-control-allow-headers"), HasSubstr(name));
  }
  EXPECT_FALSE(preflight.header("access-control-max-age").empty());
  EXPECT_EQ(preflight.body, "");

  // A refusal is readable by the page too, so that it can ask for a token.
  std::string init = Call("1", "initialize",
                          {{"protocolVersion", "2025-11-25"},
                           {"capabilities", json::object()},
                           {"clientInfo", {{"name", "t"}, {"version", "1"}}}});
  Response refused = Exchange(Request("POST", "", init, {page}));
  EXPECT_EQ(refused.status, 401);
  EXPECT_EQ(refused.header("access-control-allow-origin"), "http://localhost:6274");

  Response accepted = Exchange(Request("POST", "", init, {page, "Authorization: Bearer s3cret"}));
  EXPECT_EQ(accepted.status, 200);
  EXPECT_EQ(accepted.header("access-control-allow-origin"), "http://localhost:6274");
  EXPECT_THAT(accepted.header("access-control-expose-headers"), HasSubstr("Mcp-Session-Id"));
  EXPECT_EQ(accepted.header("vary"), "Origin");
  const std::string session = accepted.header("mcp-session-id");
  ASSERT_FALSE(session.empty());

  // The GET stream's headers carry them as well.
  RawClient stream(port_);
  ASSERT_TRUE(stream.Send(Request("GET", session, "", {page, "Authorization: Bearer s3cret"})));
  auto head = stream.ReadHead();
  ASSERT_TRUE(head.has_value());
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->header("access-control-allow-origin"), "http://localhost:6274");
  stream.Close();

  // Without an Origin (not a browser) there is nothing to add; a foreign page is refused,
  // preflight included.
  Response plain = Exchange(Request("POST", "", init, {"Authorization: Bearer s3cret"}));
  EXPECT_EQ(plain.status, 200);
  EXPECT_EQ(plain.header("access-control-allow-origin"), "");
  Response options_without_origin = Exchange(Request("OPTIONS", "", ""));
  EXPECT_EQ(options_without_origin.status, 204);
  EXPECT_THAT(options_without_origin.header("allow"), HasSubstr("POST"));
  EXPECT_EQ(options_without_origin.header("access-control-allow-origin"), "");
  Response foreign =
      Exchange(Request("OPTIONS", "", "",
                       {"Origin: http://evil.example.com", "Access-Control-Request-Method: POST"}));
  EXPECT_EQ(foreign.status, 403);
  EXPECT_EQ(foreign.header("access-control-allow-origin"), "");
}

TEST_F(HttpServerTest, BearerTokensAreRequiredWhenConfigured) {
  HttpOptions options;
  options.auth_tokens = {{"ops", "s3cret"}};
  StartServer(options);
  std::string init = Call("1", "initialize",
                          {{"protocolVersion", "2025-11-25"},
                           {"capabilities", json::object()},
                           {"clientInfo", {{"name", "t"}, {"version", "1"}}}});
  Response none = Exchange(Request("POST", "", init));
  EXPECT_EQ(none.status, 401);
  EXPECT_THAT(none.header("www-authenticate"), StartsWith("Bearer"));
  Response wrong = Exchange(Request("POST", "", init, {"Authorization: Bearer nope"}));
  EXPECT_EQ(wrong.status, 401);
  EXPECT_THAT(wrong.header("www-authenticate"), HasSubstr("invalid_token"));
  EXPECT_EQ(Exchange(Request("POST", "", init, {"Authorization: Bearer s3cret"})).status, 200);
}

TEST_F(HttpServerTest, OversizedBodyGets413AndTheServerKeepsServing) {
  HttpOptions options;
  options.max_body_bytes = 1024;
  StartServer(options);
  std::string session = Initialize();
  Response big =
      Exchange(Request("POST", session,
                       R"({"jsonrpc":"2.0","id":"big","method":"ping","params":{"pad":")" +
                           std::string(4096, 'x') + "\"}}"));
  EXPECT_EQ(big.status, 413);
  EXPECT_EQ(big.Json()["error"]["code"], -32600);
  EXPECT_EQ(Exchange(Request("POST", session, Call("p", "ping"))).status, 200);
}

TEST_F(HttpServerTest, SlowlorisClientIsCutOffWhileOthersAreServed) {
  HttpOptions options;
  options.header_timeout = 300ms;
  StartServer(options);
  std::string session = Initialize();
  RawClient slow(port_);
  ASSERT_TRUE(slow.Send("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "));
  // Others are served while the slow client dribbles.
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(Exchange(Request("POST", session, Call("p", "ping"))).status, 200);
    slow.Send("x");
  }
  auto response = slow.ReadHead();
  if (response) {
    EXPECT_EQ(response->status, 408);
  }
  EXPECT_TRUE(slow.WaitForClose());
}

TEST_F(HttpServerTest, AClientThatStopsReadingIsDisconnected) {
  HttpOptions options;
  options.write_timeout = 300ms;
  options.max_body_bytes = 32 * 1024 * 1024;
  StartServer(options);
  std::string session = Initialize();
  // An 8 MiB answer, more than the server's socket buffer (at most 4 MiB here) and the
  // client's (shrunk) can hold while the client reads nothing.
  const std::string big(8 * 1024 * 1024, 'x');
  ASSERT_TRUE(WaitForConnections(0));  // Initialize's connections are gone
  RawClient stalled(port_, 4096);
  ASSERT_TRUE(stalled.Send(
      Request("POST", session,
              Call("big", "tools/call", {{"name", "echo"}, {"arguments", {{"blob", big}}}}))));
  // Once the echo ran, the server had the whole request, and so the connection was counted.
  // (Its close can come before a poll of the count sees it open, under load.)
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (tools_.echoes == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(5ms);
  }
  ASSERT_EQ(tools_.echoes, 1);
  EXPECT_TRUE(WaitForConnections(0)) << "the stalled client was not disconnected";
  // What it gets when it finally reads is cut short.
  auto response = stalled.Read();
  EXPECT_TRUE(!response.has_value() || response->body.size() < big.size());
  // Others are served as before, the same session included.
  EXPECT_EQ(Exchange(Request("POST", session, Call("after", "ping"))).status, 200);
}

TEST_F(HttpServerTest, ConnectionsOverTheCapAreClosed) {
  HttpOptions options;
  options.max_connections = 2;
  StartServer(options);
  RawClient a(port_), b(port_);
  // Both are in the middle of a request, so neither is idle and can make room (an idle one
  // would: HttpEdgesTest.AtTheCapTheConnectionIdleLongestMakesRoom).
  ASSERT_TRUE(a.Send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
  ASSERT_TRUE(b.Send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
  // Wait until both are accepted and reading, then a third is refused.
  ASSERT_TRUE(WaitForConnections(2));
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (http_->idle_connection_count() != 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(5ms);
  }
  RawClient c(port_);
  EXPECT_TRUE(c.WaitForClose());
  a.Close();
  ASSERT_TRUE(WaitForConnections(1));
  RawClient d(port_);
  ASSERT_TRUE(d.Send(Request("GET", "", "", {}, "/healthz")));
  auto health = d.Read();
  ASSERT_TRUE(health.has_value());
  EXPECT_EQ(health->status, 200);
}

TEST_F(HttpServerTest, ConnectionsFromOneAddressAreCapped) {
  HttpOptions options;
  options.max_connections_per_ip = 2;
  StartServer(options);
  RawClient a(port_), b(port_);
  ASSERT_TRUE(a.connected() && b.connected());
  ASSERT_TRUE(WaitForConnections(2));
  RawClient c(port_);  // a third from 127.0.0.1
  EXPECT_TRUE(c.WaitForClose());
  EXPECT_EQ(http_->connection_count(), 2u);
  // The first two are served as usual, and a closed one frees its place.
  ASSERT_TRUE(b.Send(Request("GET", "", "", {}, "/healthz")));
  auto health = b.Read();
  ASSERT_TRUE(health.has_value());
  EXPECT_EQ(health->status, 200);
  a.Close();
  ASSERT_TRUE(WaitForConnections(1));
  RawClient d(port_);
  ASSERT_TRUE(d.Send(Request("GET", "", "", {}, "/healthz")));
  auto again = d.Read();
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->status, 200);
}

TEST_F(HttpServerTest, RequestsPerSessionAreCapped) {
  HttpOptions options;
  options.max_requests_per_session = 1;
  StartServer(options);
  std::string session = Initialize();
  RawClient held(port_);
  ASSERT_TRUE(held.Send(
      Request("POST", session, Call("h", "tools/call", {{"name", "hold"}, {"arguments", {}}}))));
  // The held call occupies the session's one slot (wait until the tool has it).
  Response over;
  for (int i = 0; i < 200; ++i) {
    over = Exchange(Request("POST", session, Call("o", "ping")));
    if (over.status == 429) break;
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_EQ(over.status, 429);
  ASSERT_TRUE(tools_.ReleaseOne());
  auto done = held.Read();
  ASSERT_TRUE(done.has_value());
  EXPECT_EQ(done->Json()["id"], "h");
  EXPECT_EQ(Exchange(Request("POST", session, Call("o", "ping"))).status, 200);
}

TEST_F(HttpServerTest, RelatedNotificationTurnsThePostIntoAnSseStream) {
  StartServer();
  std::string session = Initialize();
  RawClient client(port_);
  ASSERT_TRUE(client.Send(Request("POST", session,
                                  Call("p1", "tools/call",
                                       {{"name", "progress"},
                                        {"arguments", {{"x", 1}}},
                                        {"_meta", {{"progressToken", "tok"}}}}))));
  auto head = client.ReadHead();
  ASSERT_TRUE(head.has_value());
  EXPECT_EQ(head->status, 200);
  EXPECT_THAT(head->header("content-type"), StartsWith("text/event-stream"));
  EXPECT_EQ(head->header("mcp-session-id"), session);
  auto priming = client.NextEvent();
  ASSERT_TRUE(priming.has_value());
  EXPECT_TRUE(priming->data.empty());
  EXPECT_FALSE(priming->id.empty());
  EXPECT_TRUE(priming->retry.has_value());
  auto progress = client.NextEvent();
  ASSERT_TRUE(progress.has_value());
  json notice = json::parse(progress->data);
  EXPECT_EQ(notice["method"], "notifications/progress");
  EXPECT_EQ(notice["params"]["progressToken"], "tok");
  ASSERT_TRUE(tools_.ReleaseOne());
  auto result = client.NextEvent();
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(json::parse(result->data)["id"], "p1");
  EXPECT_NE(result->id, progress->id);
  EXPECT_FALSE(client.NextEvent().has_value());
  EXPECT_TRUE(client.stream_ended());
  // The connection stays usable after the stream ended.
  ASSERT_TRUE(client.Send(Request("POST", session, Call("after", "ping"))));
  auto after = client.Read();
  ASSERT_TRUE(after.has_value());
  EXPECT_EQ(after->Json()["id"], "after");
}

TEST_F(HttpServerTest, GetStreamCarriesUnrelatedMessagesAndResumesWithLastEventId) {
  StartServer();
  std::string session = Initialize();
  std::string first_id;
  {
    RawClient get(port_);
    ASSERT_TRUE(get.Send(Request("GET", session, "")));
    auto head = get.ReadHead();
    ASSERT_TRUE(head.has_value());
    EXPECT_EQ(head->status, 200);
    EXPECT_THAT(head->header("content-type"), StartsWith("text/event-stream"));
    auto priming = get.NextEvent();
    ASSERT_TRUE(priming.has_value());
    EXPECT_TRUE(priming->data.empty());
    server_.NotifyListChanged(ListKind::kTools);
    auto event = get.NextEvent();
    ASSERT_TRUE(event.has_value());
    EXPECT_EQ(json::parse(event->data)["method"], "notifications/tools/list_changed");
    first_id = event->id;
  }  // the stream drops
  // Wait until the server has noticed, then send two messages nobody is listening for.
  std::this_thread::sleep_for(100ms);
  server_.NotifyListChanged(ListKind::kTools);
  server_.NotifyListChanged(ListKind::kPrompts);
  std::this_thread::sleep_for(100ms);
  RawClient resumed(port_);
  ASSERT_TRUE(resumed.Send(Request("GET", session, "", {"Last-Event-ID: " + first_id})));
  auto head = resumed.ReadHead();
  ASSERT_TRUE(head.has_value());
  EXPECT_EQ(head->status, 200);
  std::vector<std::string> methods;
  while (methods.size() < 2) {
    auto event = resumed.NextEvent();
    ASSERT_TRUE(event.has_value());
    if (event->data.empty()) continue;  // priming
    EXPECT_NE(event->id, first_id);
    methods.push_back(json::parse(event->data)["method"]);
  }
  EXPECT_EQ(methods[0], "notifications/tools/list_changed");
  EXPECT_EQ(methods[1], "notifications/prompts/list_changed");
}

TEST_F(HttpServerTest, ClientLeavingMidCallIsNotACancellation) {
  StartServer();
  std::string session = Initialize();
  {
    RawClient caller(port_);
    ASSERT_TRUE(caller.Send(
        Request("POST", session,
                Call("gone", "tools/call", {{"name", "hold"}, {"arguments", {{"k", 7}}}}))));
  }
  std::this_thread::sleep_for(100ms);
  RawClient get(port_);
  ASSERT_TRUE(get.Send(Request("GET", session, "")));
  ASSERT_TRUE(get.ReadHead().has_value());
  ASSERT_TRUE(tools_.ReleaseOne());
  std::optional<Event> event;
  do {
    event = get.NextEvent();
    ASSERT_TRUE(event.has_value());
  } while (event->data.empty());
  json result = json::parse(event->data);
  EXPECT_EQ(result["id"], "gone");
  EXPECT_THAT(result["result"]["content"][0]["text"].get<std::string>(), HasSubstr("7"));
  EXPECT_EQ(tools_.cancelled.load(), 0);
}

TEST_F(HttpServerTest, DroppedPostStreamResumesOnGetWithLastEventId) {
  StartServer();
  std::string session = Initialize();
  std::string last_id;
  {
    RawClient client(port_);
    ASSERT_TRUE(client.Send(Request("POST", session,
                                    Call("r1", "tools/call",
                                         {{"name", "progress"},
                                          {"arguments", json::object()},
                                          {"_meta", {{"progressToken", 5}}}}))));
    ASSERT_TRUE(client.ReadHead().has_value());
    auto priming = client.NextEvent();
    auto progress = client.NextEvent();
    ASSERT_TRUE(progress.has_value());
    last_id = progress->id;
  }
  std::this_thread::sleep_for(100ms);
  ASSERT_TRUE(tools_.ReleaseOne());
  std::this_thread::sleep_for(100ms);
  RawClient resumed(port_);
  ASSERT_TRUE(resumed.Send(Request("GET", session, "", {"Last-Event-ID: " + last_id})));
  auto head = resumed.ReadHead();
  ASSERT_TRUE(head.has_value());
  EXPECT_EQ(head->status, 200);
  std::vector<json> messages;
  while (auto event = resumed.NextEvent()) {
    if (!event->data.empty()) messages.push_back(json::parse(event->data));
  }
  // Only the missed response, and the resumed stream ends with it.
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0]["id"], "r1");
  EXPECT_TRUE(resumed.stream_ended());
  EXPECT_EQ(tools_.cancelled.load(), 0);
}

TEST_F(HttpServerTest, AToolCanCloseItsStreamAndTheClientPollsForTheResult) {
  StartServer();
  std::string session = Initialize();
  for (bool release_first : {true, false}) {
    SCOPED_TRACE(release_first ? "result before the GET" : "result during the GET");
    RawClient post(port_);
    ASSERT_TRUE(post.Send(
        Request("POST", session, Call("p", "tools/call", {{"name", "poll"}, {"arguments", {}}}))));
    auto head = post.ReadHead();
    ASSERT_TRUE(head.has_value());
    EXPECT_EQ(head->status, 200);
    EXPECT_THAT(head->header("content-type"), StartsWith("text/event-stream"));
    auto priming = post.NextEvent();
    ASSERT_TRUE(priming.has_value());
    EXPECT_TRUE(priming->data.empty());
    EXPECT_FALSE(post.NextEvent().has_value());  // closed mid-call
    EXPECT_TRUE(post.stream_ended());
    EXPECT_EQ(tools_.cancelled.load(), 0);

    if (release_first) {
      ASSERT_TRUE(tools_.ReleaseOne());
    }
    RawClient get(port_);
    ASSERT_TRUE(get.Send(Request("GET", session, "", {"Last-Event-ID: " + priming->id})));
    auto get_head = get.ReadHead();
    ASSERT_TRUE(get_head.has_value());
    EXPECT_EQ(get_head->status, 200);
    if (!release_first) {
      ASSERT_TRUE(tools_.ReleaseOne());
    }
    std::optional<json> result;
    while (auto event = get.NextEvent()) {
      if (event->data.empty()) continue;  // priming
      result = json::parse(event->data);
    }
    ASSERT_TRUE(result.has_value());
    EXPECT_EQ((*result)["id"], "p");
    EXPECT_TRUE((*result)["result"].contains("content"));
    EXPECT_TRUE(get.stream_ended());  // that stream is done once its result is out
  }
  // The session goes on serving.
  EXPECT_EQ(Exchange(Request("POST", session, Call("after", "ping"))).status, 200);
}

TEST_F(HttpServerTest, HealthAndReadiness) {
  std::atomic<bool> ready{false};
  StartServer({}, [&ready](std::function<void(bool, std::string)> done) {
    done(ready.load(), ready.load() ? "ok" : "session backend down");
  });
  EXPECT_EQ(Exchange(Request("GET", "", "", {}, "/health")).status, 200);
  EXPECT_EQ(Exchange(Request("GET", "", "", {}, "/healthz")).status, 200);
  Response down = Exchange(Request("GET", "", "", {}, "/readyz"));
  EXPECT_EQ(down.status, 503);
  EXPECT_THAT(down.body, HasSubstr("session backend down"));
  ready = true;
  EXPECT_EQ(Exchange(Request("GET", "", "", {}, "/readyz")).status, 200);
}

// A steady clock the test moves by hand, for idle expiry without waiting.
class ManualClock {
 public:
  std::function<std::chrono::steady_clock::time_point()> AsFunction() const {
    return [now = now_] {
      return std::chrono::steady_clock::time_point(
          std::chrono::steady_clock::duration(now->load()));
    };
  }
  void Advance(std::chrono::steady_clock::duration by) { now_->fetch_add(by.count()); }

 private:
  std::shared_ptr<std::atomic<std::chrono::steady_clock::rep>> now_ =
      std::make_shared<std::atomic<std::chrono::steady_clock::rep>>(
          std::chrono::steady_clock::now().time_since_epoch().count());
};

TEST_F(HttpServerTest, IdleSessionsExpire) {
  ManualClock clock;
  HttpOptions options;
  options.session_idle_timeout = 30min;
  options.clock = clock.AsFunction();
  StartServer(options);
  std::string session = Initialize();

  clock.Advance(29min);
  http_->Sweep();
  ASSERT_EQ(http_->session_count(), 1u);
  // A request is activity: the 30 minutes start again from here.
  EXPECT_EQ(Exchange(Request("POST", session, Call("p", "ping"))).status, 200);
  clock.Advance(29min);
  http_->Sweep();
  ASSERT_EQ(http_->session_count(), 1u);

  clock.Advance(2min);
  http_->Sweep();
  EXPECT_EQ(http_->session_count(), 0u);
  Response gone = Exchange(Request("POST", session, Call("p", "ping")));
  EXPECT_EQ(gone.status, 404);
  EXPECT_THAT(gone.body, HasSubstr("-32001"));
}

// --port-idle-release-ms counts from a principal's last request on the same clock.
TEST_F(HttpServerTest, AnIdlePrincipalGivesUpWhatItHolds) {
  ManualClock clock;
  HttpOptions options;
  options.port_idle_release = 10min;
  options.session_idle_timeout = 24h;
  options.clock = clock.AsFunction();
  StartServer(options);
  std::string session = Initialize();
  std::shared_ptr<Principal> local = http_->principals().Get("local");
  auto released = std::make_shared<std::atomic<int>>(0);
  local->Hold("serial", [released] {
    return std::shared_ptr<void>(new int(0), [released](void* held) {
      delete static_cast<int*>(held);
      ++*released;
    });
  });

  clock.Advance(9min);
  EXPECT_EQ(Exchange(Request("POST", session, Call("p", "ping"))).status, 200);  // activity
  clock.Advance(9min);
  http_->Sweep();
  EXPECT_EQ(released->load(), 0);
  EXPECT_TRUE(local->holds_anything());

  clock.Advance(2min);
  http_->Sweep();
  EXPECT_EQ(released->load(), 1);
  EXPECT_FALSE(local->holds_anything());
  EXPECT_EQ(http_->principals().Get("local"), local) << "the same principal when it comes back";
}

TEST_F(HttpServerTest, AnOpenGetStreamKeepsItsSessionAlive) {
  ManualClock clock;
  HttpOptions options;
  options.session_idle_timeout = 100ms;
  options.clock = clock.AsFunction();
  StartServer(options);
  std::string session = Initialize();
  RawClient get(port_);
  ASSERT_TRUE(get.Send(Request("GET", session, "")));
  ASSERT_TRUE(get.ReadHead().has_value());
  clock.Advance(2h);
  http_->Sweep();
  EXPECT_EQ(http_->session_count(), 1u);
  EXPECT_EQ(Exchange(Request("POST", session, Call("p", "ping"))).status, 200);
}

TEST_F(HttpServerTest, OldProtocolClientsGetNoPrimingEvent) {
  StartServer();
  std::string session = Initialize("2025-03-26");
  RawClient get(port_);
  ASSERT_TRUE(get.Send(Request("GET", session, "", {"MCP-Protocol-Version: 2025-03-26"})));
  ASSERT_TRUE(get.ReadHead().has_value());
  server_.NotifyListChanged(ListKind::kTools);
  auto event = get.NextEvent();
  ASSERT_TRUE(event.has_value());
  EXPECT_FALSE(event->data.empty());
}

TEST_F(HttpServerTest, IdleStreamsCarryKeepAliveCommentsInValidChunks) {
  HttpOptions options;
  options.sse_keepalive = 20ms;
  StartServer(options);
  std::string session = Initialize();
  RawClient get(port_);
  ASSERT_TRUE(get.Send(Request("GET", session, "")));
  ASSERT_TRUE(get.ReadHead().has_value());
  std::this_thread::sleep_for(150ms);  // several keep-alive comments go out meanwhile
  server_.NotifyListChanged(ListKind::kTools);
  std::optional<Event> event;
  do {
    event = get.NextEvent();  // skips comments; a bad chunk would fail to parse
    ASSERT_TRUE(event.has_value());
  } while (event->data.empty());
  EXPECT_EQ(json::parse(event->data)["method"], "notifications/tools/list_changed");
}

TEST_F(HttpServerTest, DeleteAnswersRequestsStillInFlight) {
  StartServer();
  std::string session = Initialize();
  RawClient held(port_);
  ASSERT_TRUE(held.Send(
      Request("POST", session, Call("h", "tools/call", {{"name", "hold"}, {"arguments", {}}}))));
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(Exchange(Request("DELETE", session, "")).status, 200);
  auto answer = held.Read();
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->status, 404);
  tools_.ReleaseOne();  // the tool finishing later is harmless
}

TEST_F(HttpServerTest, ExpectContinueGetsAnInterimResponse) {
  StartServer();
  std::string session = Initialize();
  std::string request = Request("POST", session, Call("e", "ping"));
  size_t body_at = request.find("\r\n\r\n") + 4;
  RawClient client(port_);
  ASSERT_TRUE(client.Send(request.substr(0, body_at - 2) + "Expect: 100-continue\r\n\r\n"));
  auto interim = client.ReadHead();
  ASSERT_TRUE(interim.has_value());
  EXPECT_EQ(interim->status, 100);
  ASSERT_TRUE(client.Send(request.substr(body_at)));
  auto response = client.Read();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->Json()["id"], "e");
}

}  // namespace
}  // namespace labgate::gateway::http

namespace labgate::gateway::http {
namespace {

// A request of the 2026 era: headers and _meta as a conforming client sends them.
std::string Modern(const std::string& id, const std::string& method, json params = json::object(),
                   std::vector<std::string> extra = {}) {
  params["_meta"] = {
      {"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
      {"io.modelcontextprotocol/clientCapabilities", {{"elicitation", json::object()}}}};
  std::vector<std::string> headers = {"MCP-Protocol-Version: 2026-07-28", "Mcp-Method: " + method};
  if (method == "tools/call") headers.push_back("Mcp-Name: " + params.value("name", std::string()));
  for (auto& header : extra) headers.push_back(std::move(header));
  return Request("POST", "", Call(id, method, params), headers);
}

TEST_F(HttpServerTest, ModernRequestsAreServedWithoutASession) {
  StartServer();
  Response listed = Exchange(Modern("1", "tools/list"));
  EXPECT_EQ(listed.status, 200);
  EXPECT_TRUE(listed.header("mcp-session-id").empty()) << "no session id is minted";
  EXPECT_EQ(listed.Json()["result"]["resultType"], "complete");
  EXPECT_EQ(listed.Json()["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
            "labgate");
  EXPECT_TRUE(listed.Json()["result"]["ttlMs"].is_number_integer());
  // A leftover session id is ignored in this era.
  Response leftover = Exchange(
      Modern("2", "tools/list", json::object(), {"Mcp-Session-Id: " + std::string(64, 'a')}));
  EXPECT_EQ(leftover.status, 200);
  // ping is gone in this era.
  Response ping = Exchange(Modern("3", "ping"));
  EXPECT_EQ(ping.status, 404);
  EXPECT_EQ(ping.Json()["error"]["code"], -32601);
  EXPECT_EQ(ping.Json()["id"], "3");
}

TEST_F(HttpServerTest, HostileModernRequestsAreRefusedAndTheServerKeepsServing) {
  StartServer();
  auto still_serving = [&] {
    Response ok =
        Exchange(Modern("ok", "tools/call", {{"name", "echo"}, {"arguments", json::object()}}));
    EXPECT_EQ(ok.status, 200);
    EXPECT_EQ(ok.Json()["result"]["resultType"], "complete");
  };
  // No _meta at all.
  Response bare = Exchange(Request("POST", "", Call("m", "tools/list", json::object()),
                                   {"MCP-Protocol-Version: 2026-07-28", "Mcp-Method: tools/list"}));
  EXPECT_EQ(bare.status, 400);
  EXPECT_EQ(bare.Json()["error"]["code"], -32602);
  EXPECT_EQ(bare.Json()["error"]["data"]["field"], "_meta");
  EXPECT_EQ(bare.Json()["id"], "m");
  still_serving();
  // The header and the body disagree on the method.
  Response method =
      Exchange(Request("POST", "",
                       Call("h", "tools/list",
                            {{"_meta",
                              {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                               {"io.modelcontextprotocol/clientCapabilities", json::object()}}}}),
                       {"MCP-Protocol-Version: 2026-07-28", "Mcp-Method: prompts/list"}));
  EXPECT_EQ(method.status, 400);
  EXPECT_EQ(method.Json()["error"]["code"], -32020);
  still_serving();
  // The protocol version header disagrees with _meta.
  std::string versions = Modern("v", "tools/list");
  versions.replace(versions.find("MCP-Protocol-Version: 2026-07-28"), 32,
                   "MCP-Protocol-Version: 2025-11-25");
  Response version = Exchange(versions);
  EXPECT_EQ(version.status, 400);
  EXPECT_EQ(version.Json()["error"]["code"], -32020);
  still_serving();
  // A Base64 sentinel that is not Base64, and a name that does not match.
  json call = {{"name", "echo"}, {"arguments", json::object()}};
  std::string bad_name = Modern("n", "tools/call", call);
  bad_name.replace(bad_name.find("Mcp-Name: echo"), 14, "Mcp-Name: =?base64?!!!!?=");
  EXPECT_EQ(Exchange(bad_name).Json()["error"]["code"], -32020);
  std::string other_name = Modern("n2", "tools/call", call);
  other_name.replace(other_name.find("Mcp-Name: echo"), 14, "Mcp-Name: =?base64?aG9sZA==?=");
  Response renamed = Exchange(other_name);  // "hold"
  EXPECT_EQ(renamed.status, 400);
  EXPECT_EQ(renamed.Json()["error"]["code"], -32020);
  still_serving();
  // An unsupported version.
  std::string future = Modern("f", "tools/list");
  for (size_t at; (at = future.find("2026-07-28")) != std::string::npos;) {
    future.replace(at, 10, "2099-01-01");
  }
  Response unsupported = Exchange(future);
  EXPECT_EQ(unsupported.status, 400);
  EXPECT_EQ(unsupported.Json()["error"]["code"], -32022);
  EXPECT_EQ(unsupported.Json()["error"]["data"]["requested"], "2099-01-01");
  still_serving();
}

TEST_F(HttpServerTest, TamperedRequestStateIsRefused) {
  StartServer();
  json call = {{"name", "ask"}, {"arguments", json::object()}};
  Response first = Exchange(Modern("1", "tools/call", call));
  ASSERT_EQ(first.status, 200) << first.body;
  json result = first.Json()["result"];
  ASSERT_EQ(result["resultType"], "input_required");
  EXPECT_EQ(result["inputRequests"]["confirm"]["method"], "elicitation/create");
  EXPECT_FALSE(result.contains("ttlMs"));
  const std::string state = result["requestState"].get<std::string>();

  json answered = call;
  answered["inputResponses"] = {{"confirm", {{"action", "accept"}, {"content", {{"ok", true}}}}}};
  answered["requestState"] = state + "-TAMPERED";
  Response tampered = Exchange(Modern("2", "tools/call", answered));
  EXPECT_EQ(tampered.Json()["error"]["code"], -32602);
  EXPECT_EQ(tampered.Json()["error"]["data"]["field"], "requestState");
  // The state of one tool does not unlock another.
  json elsewhere = {{"name", "echo"}, {"arguments", json::object()}, {"requestState", state}};
  EXPECT_EQ(Exchange(Modern("3", "tools/call", elsewhere)).Json()["error"]["code"], -32602);

  answered["requestState"] = state;
  Response done = Exchange(Modern("4", "tools/call", answered));
  EXPECT_EQ(done.Json()["result"]["resultType"], "complete");
}

TEST_F(HttpServerTest, AConnectionThatNeverSendsARequestIsClosedAfterTheHeaderTimeout) {
  HttpOptions options;
  options.header_timeout = 200ms;
  options.keepalive_timeout = 600s;  // what an idle keep-alive connection gets
  StartServer(options);
  RawClient silent(port_);
  ASSERT_TRUE(silent.connected());
  EXPECT_TRUE(silent.WaitForClose());  // within the client's 10 s receive timeout
}

TEST_F(HttpServerTest, TwoHostHeadersAreRefused) {
  StartServer();
  std::string request =
      Request("POST", "", Call("1", "initialize", {{"protocolVersion", "2025-11-25"}}),
              {"Host: 127.0.0.1"});
  EXPECT_EQ(Exchange(request).status, 400);
  std::string rebinding =
      Request("POST", "", Call("1", "initialize", {{"protocolVersion", "2025-11-25"}}));
  rebinding.replace(rebinding.find("Host: 127.0.0.1"), 15, "Host: [::1].evil.com");
  EXPECT_EQ(Exchange(rebinding).status, 403);
}

TEST_F(HttpServerTest, APingReusingTheIdOfARequestInFlightIsInvalid) {
  StartServer();
  std::string session = Initialize();
  RawClient held(port_);
  ASSERT_TRUE(held.Send(Request("POST", session, Call("busy", "tools/call", {{"name", "hold"}}))));
  // Wait until the call is in flight, then reuse its id for a ping.
  Response ping;
  for (int i = 0; i < 100; ++i) {
    ping = Exchange(Request("POST", session, Call("busy", "ping")));
    if (ping.Json().contains("error")) break;
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(ping.Json()["error"]["code"], -32600);
  EXPECT_EQ(ping.Json()["id"], "busy");
  ASSERT_TRUE(tools_.ReleaseOne());
  EXPECT_EQ(held.Read()->Json()["id"], "busy");
}

}  // namespace
}  // namespace labgate::gateway::http
