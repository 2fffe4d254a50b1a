#include "gateway/http/http_session.h"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>

#include "common/dcheck.h"
#include "common/log.h"
#include "common/status_map.h"
#include "gateway/core/request_trace.h"
#include "gateway/mcp/mcp_engine.h"

namespace labgate::gateway::http {

namespace asio = boost::asio;

namespace {
constexpr size_t kRetainedStreams = 32;
}  // namespace

// HTTP's side of the outbound seam for a stateful session; called on the session's strand.
class HttpSession::SessionOutbound final : public Outbound {
 public:
  explicit SessionOutbound(std::weak_ptr<HttpSession> session) : session_(std::move(session)) {}
  void Send(OutboundMessage message) override {
    if (auto self = session_.lock()) self->Route(std::move(message));
  }
  bool TakesPieces() const override { return true; }

 private:
  std::weak_ptr<HttpSession> session_;
};

HttpSession::HttpSession(std::string id, const McpServer* server, asio::io_context& io,
                         std::shared_ptr<const HttpOptions> options,
                         std::shared_ptr<Principal> principal)
    : id_(std::move(id)),
      server_(server),
      options_(std::move(options)),
      principal_(std::move(principal)),
      strand_(asio::make_strand(io)) {
  Touch();
}

void HttpSession::Start() {
  Strand strand = strand_;
  session_ = std::make_shared<McpSession>(
      server_, strand_,
      [strand](absl::AnyInvocable<void()> work) { asio::dispatch(strand, std::move(work)); },
      std::make_shared<SessionOutbound>(weak_from_this()), principal_);
  session_->Register();  // list-changed notices reach it through the server's hub
  standalone_ = std::make_shared<Stream>();
  standalone_->id = 0;
  streams_[0] = standalone_;
}

void HttpSession::AssertOnStrand() const {
  LG_DCHECK(strand_.running_in_this_thread(), "HttpSession runs on its strand");
}

void HttpSession::Touch() { last_active_.store(options_->clock().time_since_epoch().count()); }

bool HttpSession::IdleSince(std::chrono::steady_clock::time_point since) const {
  return attached_.load() == 0 && last_active_.load() < since.time_since_epoch().count();
}

HeaderList HttpSession::SessionHeaders() const { return {{"Mcp-Session-Id", id_}}; }

bool HttpSession::Priming() const {
  // Clients before 2025-11-25 may not expect an event with empty data.
  return session_->protocol_version() >= "2025-11-25";
}

void HttpSession::HandleRequest(const jsonrpc::IncomingMessage& message,
                                const std::shared_ptr<HttpConnection>& connection) {
  AssertOnStrand();
  Touch();
  // A request turned away here never reaches the dialect, so its line is written here.
  auto refused = [&](RequestOutcome outcome) {
    RequestTrace(
        {"mcp", "http", principal_->name(), message.method, IsMcpMethod(message.method), ""})
        .Answered(outcome);
  };
  if (closed_.load()) {
    refused({"http_404", 0});
    return connection->Respond(
        404, {}, HttpConnection::ErrorBody(jsonrpc_code::kSessionNotFound, "Session not found"));
  }
  std::string key = RequestKey(message.body["id"]);
  if (posts_.contains(key)) {
    refused(RequestOutcome::Error(jsonrpc_code::kInvalidRequest));
    return connection->Respond(
        200, SessionHeaders(),
        jsonrpc::MakeError(message.raw_id, jsonrpc_code::kInvalidRequest,
                           "request id " + message.raw_id + " is already in use"));
  }
  if (posts_.size() >= options_->max_requests_per_session) {
    refused({"http_429", 0});
    return connection->Respond(429, SessionHeaders(),
                               jsonrpc::MakeError(message.raw_id, jsonrpc_code::kInvalidRequest,
                                                  "too many requests in flight on this session"));
  }
  attached_++;
  posts_[key] = PendingPost{connection, nullptr};
  connection->OnGone([weak = weak_from_this(), key, connection] {
    auto self = weak.lock();
    if (!self) return;
    asio::post(self->strand_, [self, key, connection] {
      auto it = self->posts_.find(key);
      if (it == self->posts_.end() || it->second.connection != connection) return;
      // Not a cancellation: the call goes on and its result is kept for the client.
      it->second.connection = nullptr;
      if (!it->second.stream) self->attached_--;
    });
  });
  session_->Handle(message);
}

void HttpSession::HandleOther(const jsonrpc::IncomingMessage& message,
                              const std::shared_ptr<HttpConnection>& connection) {
  AssertOnStrand();
  Touch();
  if (closed_.load()) {
    return connection->Respond(
        404, {}, HttpConnection::ErrorBody(jsonrpc_code::kSessionNotFound, "Session not found"));
  }
  session_->Handle(message);
  connection->Respond(202, SessionHeaders(), "");
}

void HttpSession::Route(OutboundMessage message) {
  AssertOnStrand();
  auto it = message.related_request.empty() ? posts_.end() : posts_.find(message.related_request);
  if (message.close_stream) {
    if (it != posts_.end()) ClosePostStream(it->second);
    return;
  }
  // Pieces stay pieces only in a JSON response, which is written with gather I/O; an event
  // on a stream needs its text whole.
  const bool json_response = it != posts_.end() && !it->second.stream &&
                             it->second.connection != nullptr && message.is_response;
  if (!message.pieces.empty() && !json_response) {
    message.payload = std::move(message.pieces).Join();
  }
  if (it == posts_.end()) {
    Emit(*standalone_, message.payload);
    return;
  }
  PendingPost& post = it->second;
  if (!post.stream) {
    if (!post.connection) {
      // The client left before anything was sent: its messages go on the GET stream.
      Emit(*standalone_, message.payload);
      if (message.is_response) posts_.erase(it);
      return;
    }
    if (message.is_response) {
      // Counted out before the client can see the reply: a client that acts on it (an idle
      // sweep, say) finds the session as the reply left it.
      std::shared_ptr<HttpConnection> connection = std::move(post.connection);
      attached_--;
      posts_.erase(it);
      connection->Respond(200, SessionHeaders(),
                          message.pieces.empty() ? MessageText(std::move(message.payload))
                                                 : std::move(message.pieces));
      return;
    }
    post.stream = NewStream();
    attached_--;  // Attach counts it again
    Attach(post.stream, post.connection, 0, /*send_header=*/true);
  }
  std::shared_ptr<Stream> stream = post.stream;
  Emit(*stream, message.payload);
  if (message.is_response) {
    stream->ended = true;
    posts_.erase(it);
    Detach(*stream, /*end=*/true);
    RetireStream(stream->id);
  }
}

void HttpSession::ClosePostStream(PendingPost& post) {
  if (!post.connection) return;  // the client left already: the rest goes as it would
  if (!post.stream) {
    post.stream = NewStream();
    attached_--;  // Attach counts it again
    Attach(post.stream, post.connection, 0, /*send_header=*/true);
  }
  // The stream stays, with its replay buffer, for the client's GET with Last-Event-ID.
  Detach(*post.stream, /*end=*/true);
  post.connection = nullptr;
}

std::shared_ptr<HttpSession::Stream> HttpSession::NewStream() {
  auto stream = std::make_shared<Stream>();
  stream->id = next_stream_++;
  streams_[stream->id] = stream;
  return stream;
}

void HttpSession::Emit(Stream& stream, const std::string& payload) {
  uint64_t seq = stream.next_seq++;
  std::string event = FormatEvent({stream.id, seq}, payload);
  stream.bytes += event.size();
  stream.events.emplace_back(seq, event);
  while (!stream.events.empty() && (stream.events.size() > options_->replay_max_events ||
                                    stream.bytes > options_->replay_max_bytes)) {
    if (stream.events.front().first > stream.delivered) {
      LG_LOG(kWarning) << "http: session " << id_.substr(0, 8) << " stream " << stream.id
                       << ": replay buffer full; dropping an undelivered message";
    }
    stream.bytes -= stream.events.front().second.size();
    stream.events.pop_front();
  }
  if (stream.connection) {
    stream.delivered = seq;
    stream.connection->StreamWrite(std::move(event));
  }
}

void HttpSession::Attach(const std::shared_ptr<Stream>& stream,
                         const std::shared_ptr<HttpConnection>& connection, uint64_t after_seq,
                         bool send_header) {
  if (stream->connection) Detach(*stream, /*end=*/true);  // a newer GET takes over
  stream->connection = connection;
  uint64_t generation = ++attach_generation_;
  stream->attach_generation = generation;
  attached_++;
  if (send_header) connection->StartStream(SessionHeaders());
  if (Priming()) {
    connection->StreamWrite(FormatPrimingEvent({stream->id, after_seq}, options_->sse_retry));
  }
  for (const auto& [seq, event] : stream->events) {
    if (seq <= after_seq) continue;
    connection->StreamWrite(event);
    stream->delivered = seq;
  }
  connection->OnGone([weak = weak_from_this(), stream_id = stream->id, generation] {
    auto self = weak.lock();
    if (!self) return;
    asio::post(self->strand_, [self, stream_id, generation] {
      auto it = self->streams_.find(stream_id);
      if (it == self->streams_.end() || it->second->attach_generation != generation ||
          !it->second->connection) {
        return;
      }
      self->Detach(*it->second, /*end=*/false);
    });
  });
  if (stream->ended) Detach(*stream, /*end=*/true);
}

void HttpSession::Detach(Stream& stream, bool end) {
  if (!stream.connection) return;
  std::shared_ptr<HttpConnection> connection = std::move(stream.connection);  // leaves it null
  attached_--;  // before the client can see the end (see Route)
  Touch();
  if (end) connection->EndStream();
}

void HttpSession::RetireStream(uint64_t id) {
  retired_.push_back(id);
  while (retired_.size() > kRetainedStreams) {
    auto it = streams_.find(retired_.front());
    if (it != streams_.end() && !it->second->connection) streams_.erase(it);
    retired_.pop_front();
  }
}

void HttpSession::OpenStream(const std::string& last_event_id,
                             const std::shared_ptr<HttpConnection>& connection) {
  AssertOnStrand();
  Touch();
  if (closed_.load()) {
    return connection->Respond(
        404, {}, HttpConnection::ErrorBody(jsonrpc_code::kSessionNotFound, "Session not found"));
  }
  if (!last_event_id.empty()) {
    if (auto event = ParseEventId(last_event_id)) {
      auto it = streams_.find(event->stream);
      if (it != streams_.end()) {
        return Attach(it->second, connection, event->seq, /*send_header=*/true);
      }
    }
    LG_LOG(kDebug) << "http: Last-Event-ID " << last_event_id
                   << " names no stream; opening the standalone stream";
  }
  // A fresh GET gets what was queued for the standalone stream while none was open.
  Attach(standalone_, connection, standalone_->delivered, /*send_header=*/true);
}

void HttpSession::Close() {
  AssertOnStrand();
  if (closed_.exchange(true)) return;
  session_->Close();
  for (auto& [id, stream] : streams_) Detach(*stream, /*end=*/true);
  for (auto& [key, post] : posts_) {
    if (post.connection && !post.stream) {
      post.connection->Respond(
          404, {}, HttpConnection::ErrorBody(jsonrpc_code::kSessionNotFound, "Session terminated"));
      attached_--;
    }
  }
  posts_.clear();
}

}  // namespace labgate::gateway::http
