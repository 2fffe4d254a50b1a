#include "gateway/resources/session_list_watch.h"

#include <grpcpp/alarm.h>
#include <grpcpp/client_context.h>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "gateway/backends/open_streams.h"
#include "labgate/session/v1/session.grpc.pb.h"

namespace labgate::gateway {

namespace session_v1 = labgate::session::v1;

struct SessionListWatch::State : std::enable_shared_from_this<State> {
  std::unique_ptr<session_v1::SessionService::Stub> stub;  // set before Begin(), then read-only
  std::function<void()> changed;                           // likewise
  absl::Mutex mutex;
  bool stopped ABSL_GUARDED_BY(mutex) = false;
  // The stream being read, if any.
  std::unique_ptr<grpc::ClientContext> context ABSL_GUARDED_BY(mutex);
  std::unique_ptr<grpc::Alarm> retry ABSL_GUARDED_BY(mutex);

  void Begin() ABSL_LOCKS_EXCLUDED(mutex);
  void Ended() ABSL_LOCKS_EXCLUDED(mutex);
  void Changed() ABSL_LOCKS_EXCLUDED(mutex) {
    {
      absl::MutexLock lock(&mutex);
      if (stopped) return;
    }
    changed();
  }
};

namespace {

class Reactor final : public grpc::ClientReadReactor<session_v1::SessionEvent> {
 public:
  explicit Reactor(std::shared_ptr<SessionListWatch::State> state) : state_(std::move(state)) {}
  void OnReadDone(bool ok) override {
    if (!ok) return;
    if (event_.type() == session_v1::SessionEvent::TYPE_CREATED ||
        event_.type() == session_v1::SessionEvent::TYPE_CLOSED) {
      state_->Changed();
    }
    StartRead(&event_);
  }
  void OnDone(const grpc::Status&) override {
    state_->Ended();
    delete this;
  }
  void Go() {
    StartRead(&event_);
    StartCall();
  }

 private:
  std::shared_ptr<SessionListWatch::State> state_;
  session_v1::SessionEvent event_;
  OpenStreams::Entry open_;
};

}  // namespace

void SessionListWatch::State::Begin() {
  absl::MutexLock lock(&mutex);
  if (stopped) return;
  context = std::make_unique<grpc::ClientContext>();
  static const session_v1::WatchSessionRequest kEverySession;
  auto* reactor = new Reactor(shared_from_this());
  stub->async()->WatchSession(context.get(), &kEverySession, reactor);
  reactor->Go();
}

void SessionListWatch::State::Ended() {
  absl::MutexLock lock(&mutex);
  if (stopped) return;
  retry = std::make_unique<grpc::Alarm>();
  retry->Set(std::chrono::system_clock::now() + std::chrono::seconds(1),
             [weak = weak_from_this()](bool ok) {
               // Weak: the alarm keeps its callback as long as this state keeps the alarm.
               auto self = weak.lock();
               if (ok && self) self->Begin();
             });
}

std::unique_ptr<SessionListWatch> SessionListWatch::Start(std::shared_ptr<grpc::Channel> channel,
                                                          std::function<void()> changed) {
  auto state = std::make_shared<State>();
  state->stub = session_v1::SessionService::NewStub(channel);
  state->changed = std::move(changed);
  state->Begin();
  return std::unique_ptr<SessionListWatch>(new SessionListWatch(state));
}

SessionListWatch::~SessionListWatch() {
  absl::MutexLock lock(&state_->mutex);
  state_->stopped = true;
  if (state_->context) state_->context->TryCancel();
  if (state_->retry) state_->retry->Cancel();
}

}  // namespace labgate::gateway
