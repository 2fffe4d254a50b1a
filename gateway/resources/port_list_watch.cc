#include "gateway/resources/port_list_watch.h"

#include <grpcpp/alarm.h>
#include <grpcpp/client_context.h>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "gateway/backends/open_streams.h"
#include "labgate/serial/v1/serial.grpc.pb.h"

namespace labgate::gateway {

namespace serial_v1 = labgate::serial::v1;

bool ChangesPortList(int type, const std::string& reason) {
  if (reason == "current state") return false;
  return type == serial_v1::PortEvent::TYPE_OPENED || type == serial_v1::PortEvent::TYPE_CLOSED ||
         type == serial_v1::PortEvent::TYPE_AUTO_CLOSE;
}

// One serial service's stream, begun again whenever it ends, until stopped.
struct PortListWatch::State : std::enable_shared_from_this<State> {
  std::unique_ptr<serial_v1::SerialService::Stub> stub;  // set before Begin(), then read-only
  std::function<void()> changed;                         // likewise
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

class Reactor final : public grpc::ClientReadReactor<serial_v1::PortEvent> {
 public:
  explicit Reactor(std::shared_ptr<PortListWatch::State> state) : state_(std::move(state)) {}
  void OnReadInitialMetadataDone(bool ok) override {
    // The service has registered the stream. What changed while none was (before the
    // gateway started, or while the service was away) is unknown: say the list changed.
    if (ok) state_->Changed();
  }
  void OnReadDone(bool ok) override {
    if (!ok) return;
    if (ChangesPortList(event_.type(), event_.reason())) state_->Changed();
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
  std::shared_ptr<PortListWatch::State> state_;
  serial_v1::PortEvent event_;
  OpenStreams::Entry open_;
};

}  // namespace

void PortListWatch::State::Begin() {
  absl::MutexLock lock(&mutex);
  if (stopped) return;
  context = std::make_unique<grpc::ClientContext>();
  static const serial_v1::WatchPortsRequest kEveryPort;
  auto* reactor = new Reactor(shared_from_this());
  stub->async()->WatchPorts(context.get(), &kEveryPort, reactor);
  reactor->Go();
}

void PortListWatch::State::Ended() {
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

std::unique_ptr<PortListWatch> PortListWatch::Start(
    std::vector<std::shared_ptr<grpc::Channel>> channels, std::function<void()> changed) {
  std::vector<std::shared_ptr<State>> states;
  for (auto& channel : channels) {
    if (channel == nullptr) continue;
    auto state = std::make_shared<State>();
    state->stub = serial_v1::SerialService::NewStub(channel);
    state->changed = changed;
    state->Begin();
    states.push_back(std::move(state));
  }
  return std::unique_ptr<PortListWatch>(new PortListWatch(std::move(states)));
}

PortListWatch::~PortListWatch() {
  for (const auto& state : states_) {
    absl::MutexLock lock(&state->mutex);
    state->stopped = true;
    if (state->context) state->context->TryCancel();
    if (state->retry) state->retry->Cancel();
  }
}

}  // namespace labgate::gateway
