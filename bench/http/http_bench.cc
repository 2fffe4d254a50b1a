// Load generator for MCP Streamable HTTP servers: N concurrent sessions, each its own
// keep-alive connection on its own thread, sending one request at a time for a fixed
// time. Reports throughput and latency percentiles as one JSON line. It reads JSON and
// SSE (chunked) responses alike, so it can measure labgate and the TypeScript
// reference server with the same client.
//
//   labgate_http_bench --port P [--path /mcp] [--sessions 32] [--seconds 10]
//                      [--method tools/list] [--tool NAME --args JSON] [--label NAME]
//                      [--era 2025|2026]
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

struct Options {
  int port = 0;
  std::string path = "/mcp";
  int sessions = 1;
  double seconds = 10;
  std::string method = "tools/list";
  std::string tool;
  std::string args = "{}";
  std::string label = "server";
  std::string era = "2025";  // "2026": stateless, no initialize, the era's headers and _meta
  int hold_streams = 0;      // > 0: open this many sessions with GET streams and hold them
  double hold_seconds = 10;
};

class Connection {
 public:
  explicit Connection(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    timeval timeout{30, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ok_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
  }
  ~Connection() { ::close(fd_); }
  bool ok() const { return ok_; }

  // Opens the session's GET stream and reads its response header.
  bool OpenStream(const std::string& path, const std::string& session, const std::string& version) {
    std::string request = "GET " + path +
                          " HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n"
                          "Mcp-Session-Id: " +
                          session + "\r\nMCP-Protocol-Version: " + version + "\r\n\r\n";
    if (::send(fd_, request.data(), request.size(), MSG_NOSIGNAL) !=
        static_cast<ssize_t>(request.size())) {
      return false;
    }
    while (Unread().find("\r\n\r\n") == std::string_view::npos) {
      if (!Fill()) return false;
    }
    return Unread().substr(0, 12) == "HTTP/1.1 200";
  }

  struct Reply {
    int status = 0;
    std::string session;
    bool has_result = false;  // the JSON body, or the SSE text, holds a "result" member
  };

  std::optional<Reply> Post(const std::string& path, const std::string& session,
                            const std::string& version, const std::string& body,
                            const std::string& extra_headers = "") {
    std::string request = "POST " + path +
                          " HTTP/1.1\r\nHost: localhost\r\nAccept: application/json, "
                          "text/event-stream\r\nContent-Type: application/json\r\n" +
                          extra_headers;
    if (!session.empty()) request += "Mcp-Session-Id: " + session + "\r\n";
    if (!version.empty()) request += "MCP-Protocol-Version: " + version + "\r\n";
    request += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    size_t sent = 0;
    while (sent < request.size()) {
      ssize_t n = ::send(fd_, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return std::nullopt;
      sent += static_cast<size_t>(n);
    }
    return ReadReply();
  }

 private:
  // Reads into the buffer's spare room, so a reply's bytes are copied once, by the kernel:
  // the generator shares the cores with the server it measures, and copying a large body
  // again here would charge the server for the client's work.
  bool Fill() {
    if (begin_ == end_) begin_ = end_ = 0;
    if (buffer_.size() - end_ < kReadSize) {
      std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
      if (buffer_.size() - end_ < kReadSize) buffer_.resize(end_ + 2 * kReadSize);
    }
    ssize_t n = ::recv(fd_, buffer_.data() + end_, buffer_.size() - end_, 0);
    if (n <= 0) return false;
    end_ += static_cast<size_t>(n);
    return true;
  }
  std::string_view Unread() const {
    return std::string_view(buffer_.data() + begin_, end_ - begin_);
  }
  // Waits until `bytes` unread bytes are buffered.
  bool FillTo(size_t bytes) {
    while (end_ - begin_ < bytes) {
      if (!Fill()) return false;
    }
    return true;
  }

  std::optional<Reply> ReadReply() {
    size_t end;
    while ((end = Unread().find("\r\n\r\n")) == std::string_view::npos) {
      if (!Fill()) return std::nullopt;
    }
    std::string head(Unread().substr(0, end));
    begin_ += end + 4;
    std::string lower = head;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    Reply reply;
    reply.status = std::atoi(head.c_str() + 9);
    auto header = [&head, &lower](const std::string& name) -> std::string {
      size_t at = lower.find("\r\n" + name + ":");
      if (at == std::string::npos) return "";
      size_t start = head.find_first_not_of(' ', at + name.size() + 3);
      return head.substr(start, head.find("\r\n", start) - start);
    };
    reply.session = header("mcp-session-id");
    constexpr std::string_view kResult = "\"result\"";
    if (header("transfer-encoding") == "chunked") {
      // An event stream's chunks are small; they are joined to look for the result.
      std::string text;
      while (true) {
        size_t line;
        while ((line = Unread().find("\r\n")) == std::string_view::npos) {
          if (!Fill()) return std::nullopt;
        }
        size_t size = std::stoul(std::string(Unread().substr(0, line)), nullptr, 16);
        if (!FillTo(line + 2 + size + 2)) return std::nullopt;
        text += Unread().substr(line + 2, size);
        begin_ += line + 4 + size;
        if (size == 0) break;
      }
      reply.has_result = text.find(kResult) != std::string::npos;
    } else {
      std::string length = header("content-length");
      size_t size = length.empty() ? 0 : std::stoul(length);
      if (!FillTo(size)) return std::nullopt;
      reply.has_result = Unread().substr(0, size).find(kResult) != std::string_view::npos;
      begin_ += size;
    }
    return reply;
  }

  static constexpr size_t kReadSize = 65536;
  int fd_ = -1;
  bool ok_ = false;
  std::vector<char> buffer_ = std::vector<char>(4 * kReadSize);
  size_t begin_ = 0;  // the unread bytes are [begin_, end_)
  size_t end_ = 0;
};

int Run(int argc, char** argv) {
  Options options;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    std::string value = argv[i + 1];
    if (flag == "--port")
      options.port = std::stoi(value);
    else if (flag == "--path")
      options.path = value;
    else if (flag == "--sessions")
      options.sessions = std::stoi(value);
    else if (flag == "--seconds")
      options.seconds = std::stod(value);
    else if (flag == "--era")
      options.era = value;
    else if (flag == "--method")
      options.method = value;
    else if (flag == "--tool")
      options.tool = value;
    else if (flag == "--args")
      options.args = value;
    else if (flag == "--label")
      options.label = value;
    else if (flag == "--hold-streams")
      options.hold_streams = std::stoi(value);
    else if (flag == "--hold-seconds")
      options.hold_seconds = std::stod(value);
    else {
      std::cerr << "unknown flag " << flag << "\n";
      return 2;
    }
  }
  if (options.port == 0) {
    std::cerr << "--port is required\n";
    return 2;
  }
  if (options.hold_streams > 0) {
    std::vector<std::unique_ptr<Connection>> held;
    int opened = 0;
    for (int i = 0; i < options.hold_streams; ++i) {
      auto post = std::make_unique<Connection>(options.port);
      json init = {{"jsonrpc", "2.0"},
                   {"id", 0},
                   {"method", "initialize"},
                   {"params",
                    {{"protocolVersion", "2025-11-25"},
                     {"capabilities", json::object()},
                     {"clientInfo", {{"name", "idle"}, {"version", "1"}}}}}};
      auto reply = post->Post(options.path, "", "", init.dump());
      if (!reply || reply->status != 200) continue;
      post->Post(options.path, reply->session, "2025-11-25",
                 R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
      auto stream = std::make_unique<Connection>(options.port);
      if (!stream->OpenStream(options.path, reply->session, "2025-11-25")) continue;
      held.push_back(std::move(stream));
      opened++;
    }
    std::cout << json{{"held_streams", opened}}.dump() << std::endl;
    std::this_thread::sleep_for(std::chrono::duration<double>(options.hold_seconds));
    return opened == options.hold_streams ? 0 : 1;
  }
  json params = json::object();
  if (options.method == "tools/call") {
    params = {{"name", options.tool}, {"arguments", json::parse(options.args)}};
  }

  std::atomic<int> ready{0};
  std::atomic<int> failed{0};
  std::atomic<bool> go{false};
  std::atomic<bool> stop{false};
  std::mutex merge_mutex;
  std::vector<double> latencies_us;
  uint64_t errors = 0;
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(options.sessions));
  for (int s = 0; s < options.sessions; ++s) {
    threads.emplace_back([&, s] {
      Connection connection(options.port);
      std::string session;
      const bool stateless = options.era == "2026";
      std::string version = stateless ? "2026-07-28" : "2025-11-25";
      std::string headers;
      json request_params = params;
      if (stateless) {
        headers = "Mcp-Method: " + options.method + "\r\n";
        if (options.method == "tools/call") headers += "Mcp-Name: " + options.tool + "\r\n";
        request_params["_meta"] = {{"io.modelcontextprotocol/protocolVersion", version},
                                   {"io.modelcontextprotocol/clientCapabilities", json::object()}};
      }
      bool ok = connection.ok();
      if (ok && !stateless) {
        json init = {{"jsonrpc", "2.0"},
                     {"id", 0},
                     {"method", "initialize"},
                     {"params",
                      {{"protocolVersion", version},
                       {"capabilities", json::object()},
                       {"clientInfo", {{"name", "bench"}, {"version", "1"}}}}}};
        auto reply = connection.Post(options.path, "", "", init.dump());
        ok = reply && reply->status == 200;
        if (ok) session = reply->session;
        auto note =
            ok ? connection.Post(options.path, session, version,
                                 R"({"jsonrpc":"2.0","method":"notifications/initialized"})")
               : std::nullopt;
        ok = ok && note && note->status == 202;
      }
      if (!ok) {
        failed++;
        ready++;
        return;
      }
      ready++;
      while (!go.load()) std::this_thread::yield();
      std::vector<double> mine;
      uint64_t my_errors = 0;
      uint64_t id = 1;
      while (!stop.load()) {
        json request = {{"jsonrpc", "2.0"},
                        {"id", id++},
                        {"method", options.method},
                        {"params", request_params}};
        auto start = Clock::now();
        auto reply = connection.Post(options.path, session, version, request.dump(), headers);
        auto elapsed = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
        if (!reply || reply->status != 200 || !reply->has_result) {
          my_errors++;
          if (!reply) break;
          continue;
        }
        if (!stop.load()) mine.push_back(elapsed);
      }
      std::lock_guard<std::mutex> lock(merge_mutex);
      latencies_us.insert(latencies_us.end(), mine.begin(), mine.end());
      errors += my_errors;
      (void)s;
    });
  }
  while (ready.load() < options.sessions) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  auto start = Clock::now();
  go = true;
  std::this_thread::sleep_for(std::chrono::duration<double>(options.seconds));
  stop = true;
  double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  for (auto& thread : threads) thread.join();

  std::sort(latencies_us.begin(), latencies_us.end());
  auto percentile = [&](double p) {
    if (latencies_us.empty()) return 0.0;
    size_t index = std::min(latencies_us.size() - 1,
                            static_cast<size_t>(p * static_cast<double>(latencies_us.size())));
    return latencies_us[index] / 1000.0;
  };
  json result = {
      {"label", options.label},
      {"era", options.era},
      {"method", options.method == "tools/call" ? "tools/call " + options.tool : options.method},
      {"sessions", options.sessions},
      {"failed_sessions", failed.load()},
      {"requests", latencies_us.size()},
      {"errors", errors},
      {"seconds", elapsed},
      {"rps", static_cast<double>(latencies_us.size()) / elapsed},
      {"p50_ms", percentile(0.50)},
      {"p99_ms", percentile(0.99)}};
  std::cout << result.dump() << std::endl;
  return failed.load() == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& error) {
    std::cerr << "labgate_http_bench: " << error.what() << "\n";
    return 2;
  }
}
