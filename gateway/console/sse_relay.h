// A backend's gRPC server stream (Subscribe, WatchSession) relayed to one HTTP client as
// Server-Sent Events: each message becomes one `data:` line of JSON. The relay ends when
// the client leaves (the call is cancelled), when the backend ends the stream (a last
// {"type":"end"} event says why), or when the console stops. Each relay holds an
// OpenStreams::Entry until gRPC is done with it, so shutdown can wait for it.
#pragma once

#include <grpcpp/client_context.h>
#include <grpcpp/support/client_callback.h>

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "gateway/backends/open_streams.h"
#include "gateway/http/http_connection.h"

namespace labgate::gateway::console {

// One relay's call, shared by its reactor and the HTTP client's "gone" callback.
class RelayCall {
 public:
  grpc::ClientContext* context() { return &context_; }
  // Cancels the call unless gRPC is already done with it.
  void Cancel();
  void MarkDone();

 private:
  absl::Mutex mutex_;
  grpc::ClientContext context_;
  bool done_ ABSL_GUARDED_BY(mutex_) = false;
};

// The relays open now, so that Stop can end them; shared with the relays, which may
// finish after the console is gone.
class RelayRegistry {
 public:
  explicit RelayRegistry(size_t max_open) : max_open_(max_open) {}
  // False when stopped or when `max_open` relays are open.
  bool Add(const std::shared_ptr<RelayCall>& call);
  void Remove(const std::shared_ptr<RelayCall>& call);
  // Cancels every relay; later Adds fail.
  void StopAll();
  size_t open() const;

 private:
  const size_t max_open_;
  mutable absl::Mutex mutex_;
  bool stopped_ ABSL_GUARDED_BY(mutex_) = false;
  std::set<std::shared_ptr<RelayCall>> calls_ ABSL_GUARDED_BY(mutex_);
};

// "data: <json>\n\n".
std::string SseData(const nlohmann::json& event);

namespace internal {

template <typename Event, typename Request>
class RelayReactor final : public grpc::ClientReadReactor<Event> {
 public:
  using ToJson = std::function<nlohmann::json(const Event&)>;
  RelayReactor(std::shared_ptr<RelayRegistry> registry, std::shared_ptr<RelayCall> call,
               std::shared_ptr<http::HttpConnection> connection, Request request, ToJson to_json)
      : registry_(std::move(registry)),
        call_(std::move(call)),
        connection_(std::move(connection)),
        request_(std::move(request)),
        to_json_(std::move(to_json)) {}

  const Request* request() const { return &request_; }
  void Begin() {
    this->StartRead(&event_);
    this->StartCall();
  }
  // The backend has registered the stream (it sends headers once it has).
  void OnReadInitialMetadataDone(bool ok) override {
    if (ok) connection_->StreamWrite(SseData({{"type", "ready"}}));
  }
  void OnReadDone(bool ok) override {
    if (!ok) return;
    connection_->StreamWrite(SseData(to_json_(event_)));
    this->StartRead(&event_);
  }
  void OnDone(const grpc::Status& status) override {
    call_->MarkDone();
    registry_->Remove(call_);
    // Written only if the client is still there (a departed client's stream is closed).
    connection_->StreamWrite(
        SseData({{"type", "end"},
                 {"reason", status.ok() ? std::string("the backend ended the stream")
                                        : std::string(status.error_message())}}));
    connection_->EndStream();
    delete this;
  }

 private:
  std::shared_ptr<RelayRegistry> registry_;
  std::shared_ptr<RelayCall> call_;
  std::shared_ptr<http::HttpConnection> connection_;
  Request request_;
  ToJson to_json_;
  Event event_;
  OpenStreams::Entry open_;
};

}  // namespace internal

// Answers `connection` with an SSE stream fed by the call that `start` begins:
//   start(grpc::ClientContext*, const Request*, grpc::ClientReadReactor<Event>*), e.g.
//   [stub](auto* context, auto* request, auto* reactor) {
//     stub->async()->Subscribe(context, request, reactor); }
// Answers 503 instead when the registry is stopped or full.
template <typename Event, typename Request, typename Start>
void RelayStream(const std::shared_ptr<RelayRegistry>& registry,
                 const std::shared_ptr<http::HttpConnection>& connection, Request request,
                 Start start, std::function<nlohmann::json(const Event&)> to_json) {
  auto call = std::make_shared<RelayCall>();
  if (!registry->Add(call)) {
    connection->Respond(503, {{"Retry-After", "5"}, {"Content-Type", "application/json"}},
                        R"({"error":"too many console streams are open, or labgate is stopping"})");
    return;
  }
  connection->StartStream({});
  // The client's departure cancels the call; the callback holds only the call, so the
  // connection and the reactor do not keep each other alive.
  connection->OnGone([call] { call->Cancel(); });
  auto* reactor = new internal::RelayReactor<Event, Request>(
      registry, call, connection, std::move(request), std::move(to_json));
  start(call->context(), reactor->request(), reactor);
  reactor->Begin();
}

}  // namespace labgate::gateway::console
