// One MCP session served over Streamable HTTP: owns the McpSession and routes what it
// sends. A message related to a request whose POST is still open goes on that POST
// (as JSON if the response comes first, else as an SSE stream); everything else goes
// on the session's standalone GET stream. Every SSE stream keeps a bounded replay
// buffer so a client can resume it with Last-Event-ID. All methods but the
// constructor run on the session's strand.
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>

#include "gateway/dialects/mcp_stateful/mcp_session.h"
#include "gateway/http/http_connection.h"
#include "gateway/http/http_options.h"
#include "gateway/http/sse.h"
#include "gateway/jsonrpc/message.h"
#include "gateway/mcp/mcp_server.h"
#include "gateway/principals/principal.h"

namespace labgate::gateway::http {

class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  using Strand = boost::asio::strand<boost::asio::io_context::executor_type>;

  // The session belongs to `principal`: only it may use, stream or end it.
  HttpSession(std::string id, const McpServer* server, boost::asio::io_context& io,
              std::shared_ptr<const HttpOptions> options, std::shared_ptr<Principal> principal);
  // Creates the McpSession; call once, before anything else, on any thread.
  void Start();

  const std::string& id() const { return id_; }
  const std::shared_ptr<Principal>& principal() const { return principal_; }
  const Strand& strand() const { return strand_; }

  // A POSTed request: answered on `connection` (JSON or SSE).
  void HandleRequest(const jsonrpc::IncomingMessage& message,
                     const std::shared_ptr<HttpConnection>& connection);
  // A POSTed notification or response: handed to the session, answered 202.
  void HandleOther(const jsonrpc::IncomingMessage& message,
                   const std::shared_ptr<HttpConnection>& connection);
  // GET: the standalone stream, or the stream named by Last-Event-ID, replayed from there.
  void OpenStream(const std::string& last_event_id,
                  const std::shared_ptr<HttpConnection>& connection);
  // Ends the session: closes the McpSession and every open stream.
  void Close();

  // Idle = nothing attached or pending since `since`; read from any thread.
  bool IdleSince(std::chrono::steady_clock::time_point since) const;
  bool closed() const { return closed_.load(); }

 private:
  struct Stream {
    uint64_t id = 0;
    uint64_t next_seq = 1;
    uint64_t delivered = 0;                               // highest seq written to a connection
    std::deque<std::pair<uint64_t, std::string>> events;  // formatted, for replay
    size_t bytes = 0;
    std::shared_ptr<HttpConnection> connection;
    uint64_t attach_generation = 0;
    bool ended = false;  // its response was sent: the stream ends after replay
  };
  struct PendingPost {
    std::shared_ptr<HttpConnection> connection;  // null once the client went away
    std::shared_ptr<Stream> stream;              // set once switched to SSE
  };

  class SessionOutbound;
  // Debug builds check that the caller runs on the strand.
  void AssertOnStrand() const;
  void Route(OutboundMessage message);
  // Ends a request's POST stream (as SSE, after its priming event); the request goes on.
  void ClosePostStream(PendingPost& post);
  std::shared_ptr<Stream> NewStream();
  void Emit(Stream& stream, const std::string& payload);
  void Attach(const std::shared_ptr<Stream>& stream,
              const std::shared_ptr<HttpConnection>& connection, uint64_t after_seq,
              bool send_header);
  void Detach(Stream& stream, bool end);
  void RetireStream(uint64_t id);
  HeaderList SessionHeaders() const;
  bool Priming() const;
  void Touch();

  const std::string id_;
  const McpServer* server_;
  std::shared_ptr<const HttpOptions> options_;
  std::shared_ptr<Principal> principal_;
  Strand strand_;
  std::shared_ptr<McpSession> session_;

  std::map<std::string, PendingPost> posts_;  // by RequestKey
  std::map<uint64_t, std::shared_ptr<Stream>> streams_;
  std::shared_ptr<Stream> standalone_;
  std::deque<uint64_t> retired_;  // ended POST streams kept for resumption, oldest first
  uint64_t next_stream_ = 1;
  uint64_t attach_generation_ = 0;

  std::atomic<bool> closed_{false};
  std::atomic<int> attached_{0};
  std::atomic<std::chrono::steady_clock::rep> last_active_;
};

}  // namespace labgate::gateway::http
