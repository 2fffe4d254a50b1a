// Small helpers over gRPC's callback API for the gateway's own calls (resources,
// prompts): a unary call that ends in a StatusOr, and a server stream watched until
// its handle is released.
#pragma once

#include <grpcpp/client_context.h>
#include <grpcpp/support/client_callback.h>

#include <chrono>
#include <functional>
#include <memory>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/grpc_callback.h"
#include "common/grpc_status.h"
#include "gateway/backends/open_streams.h"

namespace labgate::gateway {

// Unary<Response>(request, deadline, [&](ctx, req, resp, cb) { stub->async()->M(...); }, done)
template <typename Response, typename Request, typename Start>
void Unary(const Request& request, std::chrono::milliseconds deadline, Start start,
           std::function<void(absl::StatusOr<Response>)> done) {
  struct Call {
    grpc::ClientContext context;
    Request request;
    Response response;
  };
  auto call = std::make_shared<Call>();
  call->request = request;
  call->context.set_deadline(std::chrono::system_clock::now() + deadline);
  start(&call->context, &call->request, &call->response,
        OncePointerCallback([call, done = std::move(done)](const grpc::Status& status) {
          if (!status.ok()) return done(FromGrpcStatus(status));
          done(std::move(call->response));
        }));
}

// Reads a server stream, calling `on_event` (on a gRPC thread) for each message, until
// the returned handle is destroyed or the stream ends. `on_started`, if given, runs once (on
// a gRPC thread): when the server's initial metadata arrives (labgate's services send it once
// the watch is registered, so no later event is missed), or when the stream ends without it.
template <typename Event, typename Request, typename Start>
std::shared_ptr<void> Watch(const Request& request, Start start,
                            std::function<void(const Event&)> on_event,
                            std::function<void()> on_started = nullptr) {
  struct State {
    absl::Mutex mutex;
    grpc::ClientContext context;
    Request request;
    bool done ABSL_GUARDED_BY(mutex) = false;  // TryCancel only before the stream ended
  };
  class Reactor final : public grpc::ClientReadReactor<Event> {
   public:
    Reactor(std::shared_ptr<State> state, std::function<void(const Event&)> on_event,
            std::function<void()> on_started)
        : state_(std::move(state)),
          on_event_(std::move(on_event)),
          on_started_(std::move(on_started)) {}
    void OnReadInitialMetadataDone(bool /*ok*/) override { Started(); }
    void OnReadDone(bool ok) override {
      if (!ok) return;
      on_event_(event_);
      this->StartRead(&event_);
    }
    void OnDone(const grpc::Status&) override {
      Started();  // gRPC runs OnDone after every other callback
      {
        absl::MutexLock lock(&state_->mutex);
        state_->done = true;
      }
      delete this;
    }
    void Begin() {
      this->StartRead(&event_);
      this->StartCall();
    }

   private:
    void Started() {
      if (on_started_) std::exchange(on_started_, nullptr)();
    }

    std::shared_ptr<State> state_;
    std::function<void(const Event&)> on_event_;
    std::function<void()> on_started_;
    Event event_;
    OpenStreams::Entry open_;
  };
  auto state = std::make_shared<State>();
  state->request = request;
  auto* reactor = new Reactor(state, std::move(on_event), std::move(on_started));
  start(&state->context, &state->request, reactor);
  reactor->Begin();
  // Releasing the handle cancels the stream; the reactor frees itself when gRPC is done.
  // (A non-null token, so that callers can tell a subscription from "none".)
  return std::shared_ptr<void>(new char(0), [state](void* token) {
    delete static_cast<char*>(token);
    absl::MutexLock lock(&state->mutex);
    if (!state->done) state->context.TryCancel();
  });
}

}  // namespace labgate::gateway
