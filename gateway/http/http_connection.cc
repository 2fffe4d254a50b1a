#include "gateway/http/http_connection.h"

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <chrono>
#include <utility>

#include "common/log.h"
#include "common/status_map.h"
#include "gateway/core/gateway_metrics.h"
#include "gateway/http/sse.h"
#include "gateway/jsonrpc/message.h"

namespace labgate::gateway::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace beast_http = boost::beast::http;

HttpConnection::HttpConnection(asio::ip::tcp::socket socket, asio::io_context& context,
                               std::shared_ptr<const HttpOptions> options,
                               std::shared_ptr<IdleConnections> idle, Router router,
                               std::function<void()> on_destroy)
    : context_(context),
      socket_(std::move(socket)),
      strand_(asio::make_strand(context)),
      timer_(strand_),
      write_timer_(strand_),
      options_(std::move(options)),
      idle_(std::move(idle)),
      router_(std::move(router)),
      on_destroy_(std::move(on_destroy)),
      header_deadline_(std::chrono::steady_clock::now() + options_->header_timeout) {}

HttpConnection::~HttpConnection() {
  LeaveIdleList();
  if (on_destroy_) on_destroy_();
}

std::string HttpConnection::ErrorBody(int code, std::string_view message) {
  return jsonrpc::MakeError("null", code, message);
}

void HttpConnection::Start() {
  idle_ticket_ = idle_->Join(weak_from_this());
  asio::post(strand_, [self = shared_from_this()] {
    boost::system::error_code ignored;
    self->socket_.set_option(asio::ip::tcp::no_delay(true), ignored);
    self->WaitForRequest();
  });
}

void HttpConnection::WaitForRequest() {
  if (phase_ == Phase::kClosed) return;
  phase_ = Phase::kIdle;
  gone_ = nullptr;
  if (buffer_.size() > 0) return ReadRequest();
  if (idle_ticket_) idle_->Idle(*idle_ticket_);
  // A connection that has never sent a request gets only the header timeout.
  if (served_any_) {
    ArmTimer(options_->keepalive_timeout);
  } else {
    ArmTimerAt(header_deadline_);
  }
  ArmWatch();
}

// A read kept pending outside request parsing: while idle it waits for the next
// request's first bytes; while a response is pending it notices the client leaving.
void HttpConnection::ArmWatch() {
  if (watch_pending_ || phase_ == Phase::kClosed || buffer_.size() > 0) return;
  watch_pending_ = true;
  socket_.async_read_some(
      buffer_.prepare(4096),
      asio::bind_executor(strand_,
                          [self = shared_from_this()](boost::system::error_code ec, size_t bytes) {
                            self->OnWatch(ec, bytes);
                          }));
}

void HttpConnection::OnWatch(boost::system::error_code ec, size_t bytes) {
  watch_pending_ = false;
  if (phase_ == Phase::kClosed) return;
  if (ec) return Gone();
  buffer_.commit(bytes);
  // While busy, pipelined bytes wait in the buffer for their turn.
  if (phase_ == Phase::kIdle) ReadRequest();
}

void HttpConnection::ReadRequest() {
  if (idle_ticket_ && !idle_->Busy(*idle_ticket_)) {
    // Chosen to make room at the connection cap just as its next request began.
    phase_ = Phase::kClosed;
    return CloseSocket();
  }
  phase_ = Phase::kReading;
  if (served_any_) {
    header_deadline_ = std::chrono::steady_clock::now() + options_->header_timeout;
  }
  served_any_ = true;
  header_done_ = false;
  RequestParser& parser = parser_.emplace();
  parser.header_limit(static_cast<std::uint32_t>(options_->max_header_bytes));
  parser.body_limit(options_->max_body_bytes);
  // A request already whole in the buffer (the usual small one) is parsed here: an
  // asynchronous read would hand back its header and then its body through the scheduler.
  // Pipelined requests answered at once nest (the answer waits for the next request), so
  // after a few the asynchronous read, which returns through the scheduler, takes over.
  if (inline_reads_ < kMaxInlineReads) {
    if (std::optional<boost::system::error_code> parsed = ParseBuffered(parser)) {
      header_done_ = parser.is_header_done();
      ++inline_reads_;
      OnRead(*parsed);
      --inline_reads_;
      return;
    }
  }
  ArmTimerAt(header_deadline_);
  beast_http::async_read_header(
      socket_, buffer_, parser,
      asio::bind_executor(strand_, [self = shared_from_this()](boost::system::error_code ec,
                                                               size_t) { self->OnHeader(ec); }));
}

std::optional<boost::system::error_code> HttpConnection::ParseBuffered(RequestParser& parser) {
  boost::system::error_code ec;
  while (buffer_.size() > 0) {
    const size_t used = parser.put(buffer_.data(), ec);
    buffer_.consume(used);
    if (ec == beast_http::error::need_more) return std::nullopt;
    if (ec || parser.is_done()) return ec;
    if (used == 0) return std::nullopt;
  }
  return std::nullopt;
}

void HttpConnection::OnHeader(boost::system::error_code ec) {
  if (ec || phase_ == Phase::kClosed || !parser_.has_value()) return OnRead(ec);
  RequestParser& parser = *parser_;
  header_done_ = true;
  // The body's own time starts now, unless it is here already (the usual small request).
  const auto length = parser.content_length();
  if (!length || buffer_.size() < *length) ArmTimer(options_->read_timeout);
  // Clients such as curl wait for this before sending a large body.
  auto expect = parser.get().find(beast_http::field::expect);
  if (expect != parser.get().end() &&
      beast::iequals(expect->value(), boost::beast::string_view("100-continue"))) {
    Enqueue(WireContinue());
  }
  beast_http::async_read(
      socket_, buffer_, parser,
      asio::bind_executor(strand_, [self = shared_from_this()](boost::system::error_code ec,
                                                               size_t) { self->OnRead(ec); }));
}

void HttpConnection::OnRead(boost::system::error_code ec) {
  DisarmTimer();
  if (phase_ == Phase::kClosed) return;
  if (ec) {
    phase_ = Phase::kBusy;
    if (timed_out_) {
      LG_LOG(kDebug) << "http: request " << (header_done_ ? "body" : "header")
                     << " not received in time; closing";
      if (!header_done_) {
        GatewayMetrics::Get().http_connections_closed.With({"header_timeout"}).Increment();
      }
      return Respond(
          408, {}, ErrorBody(jsonrpc_code::kInvalidRequest, "request not received in time"), true);
    }
    if (ec == beast_http::error::body_limit) {
      return Respond(
          413, {},
          ErrorBody(jsonrpc_code::kInvalidRequest,
                    "request body exceeds " + std::to_string(options_->max_body_bytes) + " bytes"),
          true);
    }
    if (ec == beast_http::error::header_limit) {
      return Respond(431, {}, ErrorBody(jsonrpc_code::kInvalidRequest, "request headers too large"),
                     true);
    }
    if (ec == beast_http::error::end_of_stream || ec == asio::error::eof ||
        ec == asio::error::connection_reset || ec == asio::error::operation_aborted) {
      phase_ = Phase::kClosed;
      return CloseSocket();
    }
    return Respond(
        400, {},
        ErrorBody(jsonrpc_code::kInvalidRequest, "malformed HTTP request: " + ec.message()), true);
  }
  if (!parser_.has_value()) {  // never: a request is read only through a parser
    phase_ = Phase::kClosed;
    return CloseSocket();
  }
  Request request = parser_->release();
  parser_.reset();
  response_headers_.clear();
  keep_alive_ = request.keep_alive();
  phase_ = Phase::kBusy;
  router_(shared_from_this(), std::move(request));
  // Armed once the request is routed: a reply written at once has gone out before this
  // read's first attempt, which then costs the client no time.
  ArmWatch();
}

void HttpConnection::AddResponseHeaders(HeaderList headers) {
  asio::dispatch(strand_, [self = shared_from_this(), headers = std::move(headers)]() mutable {
    for (auto& header : headers) self->response_headers_.push_back(std::move(header));
  });
}

void HttpConnection::Respond(int status, HeaderList headers, std::string body, bool close) {
  Respond(status, std::move(headers), MessageText(std::move(body)), close);
}

void HttpConnection::Respond(int status, HeaderList headers, MessageText body, bool close) {
  // Dispatched, like the request: the reply is written at once when the connection is free.
  asio::dispatch(strand_, [self = shared_from_this(), status, headers = std::move(headers),
                           body = std::move(body), close]() mutable {
    if (self->phase_ != Phase::kBusy) return;
    for (auto& header : self->response_headers_) headers.push_back(std::move(header));
    self->response_headers_.clear();
    if (close || !self->keep_alive_) self->close_after_write_ = true;
    if (!StatusCarriesBody(status)) body = MessageText();
    std::string head = WireResponseHead(status, headers, body.size(), self->close_after_write_);
    self->Enqueue(std::move(head), std::move(body));
    self->FinishResponse();
  });
}

void HttpConnection::StartStream(HeaderList headers) {
  asio::post(strand_, [self = shared_from_this(), headers = std::move(headers)]() mutable {
    if (self->phase_ != Phase::kBusy) return;
    for (auto& header : self->response_headers_) headers.push_back(std::move(header));
    self->response_headers_.clear();
    self->phase_ = Phase::kStreaming;
    self->Enqueue(WireStreamHead(headers));
    self->ArmTimer(self->options_->sse_keepalive);
  });
}

void HttpConnection::StreamWrite(std::string data) {
  asio::post(strand_, [self = shared_from_this(), data = std::move(data)]() mutable {
    if (self->phase_ != Phase::kStreaming || data.empty()) return;
    if (self->queued_bytes_ > self->options_->max_queued_bytes) {
      LG_LOG(kWarning) << "http: SSE client too slow; dropping its stream";
      return self->Gone();
    }
    self->Enqueue(WireChunk(data));
  });
}

void HttpConnection::EndStream() {
  asio::post(strand_, [self = shared_from_this()] {
    if (self->phase_ != Phase::kStreaming) return;
    self->DisarmTimer();
    if (!self->keep_alive_) self->close_after_write_ = true;
    self->Enqueue(WireLastChunk());
    self->FinishResponse();
  });
}

void HttpConnection::FinishResponse() {
  gone_ = nullptr;
  if (close_after_write_) {
    if (phase_ != Phase::kClosed) phase_ = Phase::kBusy;  // nothing more is read
    return;
  }
  WaitForRequest();
}

void HttpConnection::OnGone(std::function<void()> callback) {
  asio::post(strand_, [self = shared_from_this(), callback = std::move(callback)]() mutable {
    if (self->phase_ == Phase::kClosed) {
      if (callback) callback();
      return;
    }
    self->gone_ = std::move(callback);
  });
}

void HttpConnection::Abort() {
  asio::post(strand_, [self = shared_from_this()] { self->Gone(); });
}

void HttpConnection::Evict() {
  asio::post(strand_, [self = shared_from_this()] {
    if (self->phase_ != Phase::kIdle) return;  // it closed, or saw it was chosen
    LG_LOG(kDebug) << "http: closing the connection idle longest to admit a new one";
    self->phase_ = Phase::kClosed;
    self->CloseSocket();
  });
}

void HttpConnection::Enqueue(std::string data, MessageText body) {
  queued_bytes_ += data.size() + body.size();
  queue_.push_back(Piece{std::move(data), nullptr});
  if (!body.head.empty()) queue_.push_back(Piece{std::move(body.head), nullptr});
  if (body.shared != nullptr) queue_.push_back(Piece{{}, std::move(body.shared)});
  if (!body.tail.empty()) queue_.push_back(Piece{std::move(body.tail), nullptr});
  if (!write_pending_) WriteNext();
}

void HttpConnection::WriteNext() {
  if (phase_ == Phase::kClosed) return;
  if (queue_.empty()) {
    if (close_after_write_) {
      boost::system::error_code ignored;
      socket_.shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
      phase_ = Phase::kClosed;
      CloseSocket();
    }
    return;
  }
  // Everything queued goes in one gather write, each piece as it was queued (no copy).
  writing_.clear();
  while (!queue_.empty()) {
    writing_.push_back(std::move(queue_.front()));
    queue_.pop_front();
  }
  write_buffers_.clear();
  size_t total = 0;
  for (const Piece& piece : writing_) {
    write_buffers_.push_back(asio::buffer(piece.view()));
    total += piece.view().size();
  }
  // Most replies fit in the socket's buffer: written here, they need no write timer and
  // no trip through the reactor. What the socket does not take is written asynchronously.
  if (WriteAtOnce(total)) {
    writing_.clear();
    queued_bytes_ = 0;
    for (const Piece& pending : queue_) queued_bytes_ += pending.view().size();
    return WriteNext();
  }
  write_pending_ = true;
  const uint64_t generation = ++write_generation_;
  write_timer_.expires_after(options_->write_timeout);
  write_timer_.async_wait([self = shared_from_this(), generation](boost::system::error_code ec) {
    if (ec || generation != self->write_generation_ || !self->write_pending_) return;
    LG_LOG(kWarning) << "http: client stopped reading (output not written within "
                     << self->options_->write_timeout.count() << " ms); closing";
    self->Gone();
  });
  // Asio's own completion conditions write at most 64 KiB per send; a large reply such as a
  // tools/list page then costs a second send and a trip through the reactor.
  const auto whole_buffer = [total](const boost::system::error_code& ec, size_t written) -> size_t {
    return ec ? 0 : total - written;
  };
  asio::async_write(socket_, write_buffers_, whole_buffer,
                    asio::bind_executor(strand_, [self = shared_from_this()](
                                                     boost::system::error_code ec, size_t bytes) {
                      self->write_pending_ = false;
                      ++self->write_generation_;
                      self->write_timer_.cancel();
                      self->queued_bytes_ -= std::min(self->queued_bytes_, bytes);
                      if (ec) return self->Gone();
                      self->queued_bytes_ = 0;
                      for (const Piece& pending : self->queue_)
                        self->queued_bytes_ += pending.view().size();
                      self->WriteNext();
                    }));
}

bool HttpConnection::WriteAtOnce(size_t& total) {
  boost::system::error_code ec;
  if (!socket_.non_blocking()) socket_.non_blocking(true, ec);
  if (ec) return false;
  size_t written = socket_.write_some(write_buffers_, ec);
  if (ec) written = 0;  // would block, or an error the asynchronous write will report
  if (written == total) return true;
  // Drop what went out; the rest is written asynchronously.
  total -= written;
  auto first = write_buffers_.begin();
  while (written > 0 && written >= first->size()) {
    written -= first->size();
    ++first;
  }
  write_buffers_.erase(write_buffers_.begin(), first);
  if (written > 0) write_buffers_.front() += written;
  return false;
}

void HttpConnection::ArmTimer(std::chrono::milliseconds after) {
  ArmTimerAt(std::chrono::steady_clock::now() + after);
}

void HttpConnection::ArmTimerAt(std::chrono::steady_clock::time_point deadline) {
  uint64_t generation = ++timer_generation_;
  timed_out_ = false;
  timer_.expires_at(deadline);
  timer_.async_wait([self = shared_from_this(), generation](boost::system::error_code ec) {
    if (ec || generation != self->timer_generation_) return;
    self->OnTimer();
  });
}

void HttpConnection::DisarmTimer() {
  ++timer_generation_;
  timer_.cancel();
}

void HttpConnection::OnTimer() {
  switch (phase_) {
    case Phase::kIdle:
      if (!served_any_) {
        GatewayMetrics::Get().http_connections_closed.With({"header_timeout"}).Increment();
      }
      phase_ = Phase::kClosed;
      return CloseSocket();
    case Phase::kReading: {
      timed_out_ = true;
      boost::system::error_code ignored;
      socket_.cancel(ignored);
      return;
    }
    case Phase::kStreaming:
      Enqueue(WireChunk(kKeepAliveComment));
      ArmTimer(options_->sse_keepalive);
      return;
    default:
      return;
  }
}

void HttpConnection::Gone() {
  if (phase_ == Phase::kClosed) return;
  phase_ = Phase::kClosed;
  CloseSocket();
  if (auto callback = std::move(gone_)) {
    gone_ = nullptr;
    callback();
  }
}

void HttpConnection::LeaveIdleList() {
  if (!idle_ticket_.has_value()) return;
  const IdleConnections::Ticket ticket = *idle_ticket_;
  idle_ticket_.reset();
  idle_->Leave(ticket);
}

void HttpConnection::CloseSocket() {
  LeaveIdleList();
  DisarmTimer();
  write_timer_.cancel();
  boost::system::error_code ignored;
  socket_.close(ignored);
}

}  // namespace labgate::gateway::http
