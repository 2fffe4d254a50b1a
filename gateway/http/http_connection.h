// One accepted TCP connection speaking HTTP/1.1: reads requests with Beast under a
// read deadline, hands each to the server's router, and writes the response, which is
// either complete or a chunked SSE stream fed from another strand. Every method may be
// called from any thread; the work runs on the connection's strand.
#pragma once

#include <boost/asio/buffer.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gateway/core/message_text.h"
#include "gateway/http/http_options.h"
#include "gateway/http/http_wire.h"
#include "gateway/http/idle_connections.h"

namespace labgate::gateway::http {

using Request = boost::beast::http::request<boost::beast::http::string_body>;

class HttpConnection : public std::enable_shared_from_this<HttpConnection> {
 public:
  // Called on the connection's strand with each complete request; exactly one of
  // Respond() or StartStream()...EndStream() must follow (from any thread).
  using Router = std::function<void(std::shared_ptr<HttpConnection>, Request)>;

  // `idle` tracks the connection while it waits for a request, so the server may close it
  // to admit another at the connection cap (Evict).
  // `context` runs the connection's strand (its handlers, and its sessions').
  HttpConnection(boost::asio::ip::tcp::socket socket, boost::asio::io_context& context,
                 std::shared_ptr<const HttpOptions> options, std::shared_ptr<IdleConnections> idle,
                 Router router, std::function<void()> on_destroy);
  ~HttpConnection();

  void Start();
  boost::asio::io_context& context() const { return context_; }

  // Headers every response to the current request carries (e.g. CORS), whichever code
  // answers it. Reset when the next request arrives.
  void AddResponseHeaders(HeaderList headers);
  void Respond(int status, HeaderList headers, std::string body, bool close = false);
  // The same with a body in pieces, written as they are (a shared piece is not copied).
  void Respond(int status, HeaderList headers, MessageText body, bool close = false);
  // Sends a 200 text/event-stream header; the body then follows chunk by chunk.
  void StartStream(HeaderList headers);
  void StreamWrite(std::string data);
  void EndStream();
  // Runs once (on this strand) if the client goes away before the response ended.
  void OnGone(std::function<void()> callback);
  // Closes the socket now.
  void Abort();
  // Closes the connection if it is still waiting for a request (IdleConnections chose it).
  void Evict();

  static std::string ErrorBody(int code, std::string_view message);

 private:
  enum class Phase { kIdle, kReading, kBusy, kStreaming, kClosed };
  using RequestParser = boost::beast::http::request_parser<boost::beast::http::string_body>;

  void WaitForRequest();
  void ArmWatch();
  void OnWatch(boost::system::error_code ec, size_t bytes);
  void ReadRequest();
  void OnHeader(boost::system::error_code ec);
  void OnRead(boost::system::error_code ec);
  void FinishResponse();
  // Bytes queued to write: owned, or shared with a cache.
  struct Piece {
    std::string text;
    std::shared_ptr<const std::string> shared;
    std::string_view view() const { return shared ? std::string_view(*shared) : text; }
  };
  // Queues bytes to write; `body` (a response's body after its head) goes in the same write.
  void Enqueue(std::string data, MessageText body = {});
  void WriteNext();
  // Feeds the buffered bytes to the parser: the read's outcome when they end the request (or
  // break it), none when more must be read.
  std::optional<boost::system::error_code> ParseBuffered(RequestParser& parser);
  // Writes write_buffers_ (`total` bytes) without waiting: true when all went out; otherwise
  // they and `total` are left holding what remains.
  bool WriteAtOnce(size_t& total);
  void ArmTimer(std::chrono::milliseconds after);
  void ArmTimerAt(std::chrono::steady_clock::time_point deadline);
  void DisarmTimer();
  void OnTimer();
  void Gone();
  void CloseSocket();
  void LeaveIdleList();

  boost::asio::io_context& context_;
  boost::asio::ip::tcp::socket socket_;
  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  boost::asio::steady_timer timer_;
  boost::asio::steady_timer write_timer_;  // write_timeout for the write in progress
  std::shared_ptr<const HttpOptions> options_;
  std::shared_ptr<IdleConnections> idle_;
  std::optional<IdleConnections::Ticket> idle_ticket_;  // from Start until closed
  Router router_;
  std::function<void()> on_destroy_;

  Phase phase_ = Phase::kIdle;
  boost::beast::flat_buffer buffer_;
  std::optional<RequestParser> parser_;
  // Requests being answered inside ReadRequest's own call (pipelined ones nest), at most
  // kMaxInlineReads.
  static constexpr int kMaxInlineReads = 8;
  int inline_reads_ = 0;
  bool watch_pending_ = false;
  bool served_any_ = false;   // a request has begun on this connection
  bool header_done_ = false;  // the current request's header has been read
  // The current request's header must be complete by then (--header-timeout-ms, counted
  // from the accept for the first request and from its first byte for later ones).
  std::chrono::steady_clock::time_point header_deadline_;
  bool keep_alive_ = true;
  uint64_t timer_generation_ = 0;
  bool timed_out_ = false;
  std::function<void()> gone_;
  HeaderList response_headers_;  // AddResponseHeaders, for the current request

  std::deque<Piece> queue_;
  std::vector<Piece> writing_;  // the pieces of the write in progress
  std::vector<boost::asio::const_buffer> write_buffers_;
  size_t queued_bytes_ = 0;
  bool write_pending_ = false;
  uint64_t write_generation_ = 0;
  bool close_after_write_ = false;
};

}  // namespace labgate::gateway::http
