#include "gateway/dialects/loaf/session_watch.h"

#include <grpcpp/client_context.h>
#include <grpcpp/support/client_callback.h>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "gateway/backends/open_streams.h"

namespace labgate::gateway::loaf {
namespace {

namespace pb = labgate::session::v1;

struct State {
  absl::Mutex mutex;
  grpc::ClientContext context;
  pb::WatchSessionRequest request;
  bool done ABSL_GUARDED_BY(mutex) = false;  // TryCancel only before the stream ended
};

class Reactor final : public grpc::ClientReadReactor<pb::SessionEvent> {
 public:
  Reactor(std::shared_ptr<State> state, SessionWatchCallbacks callbacks)
      : state_(std::move(state)), callbacks_(std::move(callbacks)) {}

  void Begin() {
    StartRead(&event_);
    StartCall();
  }
  void OnReadInitialMetadataDone(bool ok) override { Ready(ok); }
  void OnReadDone(bool ok) override {
    if (!ok) return;
    Ready(true);  // an event implies the subscription
    callbacks_.on_event(event_);
    StartRead(&event_);
  }
  void OnDone(const grpc::Status&) override {
    Ready(false);
    {
      absl::MutexLock lock(&state_->mutex);
      state_->done = true;
    }
    delete this;
  }

 private:
  void Ready(bool subscribed) {
    if (auto on_ready = std::exchange(callbacks_.on_ready, nullptr)) on_ready(subscribed);
  }

  std::shared_ptr<State> state_;
  SessionWatchCallbacks callbacks_;
  pb::SessionEvent event_;
  OpenStreams::Entry open_;
};

}  // namespace

std::shared_ptr<void> WatchSession(pb::SessionService::Stub* stub, const std::string& session_id,
                                   SessionWatchCallbacks callbacks) {
  auto state = std::make_shared<State>();
  state->request.set_session_id(session_id);
  auto* reactor = new Reactor(state, std::move(callbacks));
  stub->async()->WatchSession(&state->context, &state->request, reactor);
  reactor->Begin();
  // Releasing the handle cancels the stream; the reactor frees itself when gRPC is done.
  return std::shared_ptr<void>(new char(0), [state](void* token) {
    delete static_cast<char*>(token);
    absl::MutexLock lock(&state->mutex);
    if (!state->done) state->context.TryCancel();
  });
}

}  // namespace labgate::gateway::loaf
