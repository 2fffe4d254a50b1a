#include "gateway/backends/owner_lease.h"

#include <grpcpp/client_context.h>
#include <grpcpp/support/client_callback.h>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "common/caller_metadata.h"
#include "common/log.h"
#include "gateway/backends/open_streams.h"
#include "gateway/backends/tool_invoker.h"
#include "labgate/serial/v1/serial.grpc.pb.h"

namespace labgate::gateway {

using labgate::serial::v1::LeaseEvent;
using labgate::serial::v1::LeaseRequest;

struct OwnerLease::State {
  absl::Mutex mutex;
  grpc::ClientContext context;
  LeaseRequest request;
  bool done ABSL_GUARDED_BY(mutex) = false;  // TryCancel only before the stream ended
  bool active ABSL_GUARDED_BY(mutex) = false;
  std::string owner;  // set before the stream starts
};

namespace {

// Lives until gRPC reports the stream done; the shared State outlives it.
class LeaseReactor final : public grpc::ClientReadReactor<LeaseEvent> {
 public:
  explicit LeaseReactor(std::shared_ptr<OwnerLease::State> state) : state_(std::move(state)) {}

  void Begin() {
    StartRead(&event_);
    StartCall();
  }
  void OnReadDone(bool ok) override {
    if (!ok) return;
    {
      absl::MutexLock lock(&state_->mutex);
      state_->active = true;
    }
    StartRead(&event_);
  }
  void OnDone(const grpc::Status& status) override {
    {
      absl::MutexLock lock(&state_->mutex);
      state_->done = true;
      state_->active = false;
    }
    if (!status.ok() && status.error_code() != grpc::StatusCode::CANCELLED) {
      LG_LOG(kWarning) << "serial lease for " << state_->owner
                       << " ended: " << status.error_message();
    }
    delete this;
  }

 private:
  std::shared_ptr<OwnerLease::State> state_;
  LeaseEvent event_;
  OpenStreams::Entry open_;
};

}  // namespace

std::shared_ptr<OwnerLease> OwnerLease::Start(const std::shared_ptr<grpc::Channel>& channel,
                                              const std::string& owner) {
  auto state = std::make_shared<State>();
  state->owner = owner;
  state->context.AddMetadata(kOwnerMetadataKey, owner);
  auto stub = labgate::serial::v1::SerialService::NewStub(channel);
  auto* reactor = new LeaseReactor(state);
  stub->async()->Lease(&state->context, &state->request, reactor);
  reactor->Begin();
  return std::shared_ptr<OwnerLease>(new OwnerLease(std::move(state)));
}

OwnerLease::~OwnerLease() { Release(); }

void OwnerLease::Release() {
  absl::MutexLock lock(&state_->mutex);
  if (!state_->done) state_->context.TryCancel();
}

bool OwnerLease::active() const {
  absl::MutexLock lock(&state_->mutex);
  return state_->active;
}

}  // namespace labgate::gateway
