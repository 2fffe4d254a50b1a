#include "gateway/backends/owner_lease.h"

#include <chrono>

#include "absl/synchronization/mutex.h"
#include "common/caller_metadata.h"
#include "common/log.h"
#include "labgate/serial/v1/serial.grpc.pb.h"

namespace labgate::gateway {

using labgate::serial::v1::LeaseEvent;
using labgate::serial::v1::LeaseRequest;

namespace {
// A lease lost to a restarted or unreachable service is asked for again this often, so
// that the ports the connection opens afterwards still close when it goes.
constexpr std::chrono::seconds kRetryAfter{1};
}  // namespace

struct OwnerLease::State {
  absl::Mutex mutex;
  bool released ABSL_GUARDED_BY(mutex) = false;
  bool active ABSL_GUARDED_BY(mutex) = false;
  bool warned ABSL_GUARDED_BY(mutex) = false;  // one warning per outage, not one per retry
};

std::shared_ptr<OwnerLease> OwnerLease::Start(const std::shared_ptr<grpc::Channel>& channel,
                                              const std::string& owner) {
  auto state = std::make_shared<State>();
  std::shared_ptr<labgate::serial::v1::SerialService::Stub> stub =
      labgate::serial::v1::SerialService::NewStub(channel);
  auto watch = Stream::Start(
      [stub, owner](grpc::ClientContext* context, grpc::ClientReadReactor<LeaseEvent>* reactor) {
        static const LeaseRequest kLease;
        context->AddMetadata(kOwnerMetadataKey, owner);
        stub->async()->Lease(context, &kLease, reactor);
      },
      {.on_event =
           [state, owner](const LeaseEvent&) {
             absl::MutexLock lock(&state->mutex);
             if (state->released) return;
             if (state->warned) LG_LOG(kInfo) << "serial lease for " << owner << " is held again";
             state->active = true;
             state->warned = false;
           },
       .on_started = nullptr,
       .on_ended =
           [state, owner] {
             absl::MutexLock lock(&state->mutex);
             if (state->released) return;
             if (!state->warned) {
               LG_LOG(kWarning) << "serial lease for " << owner
                                << " ended; asking for it again every " << kRetryAfter.count()
                                << " s";
             }
             state->active = false;
             state->warned = true;
           }},
      kRetryAfter);
  return std::shared_ptr<OwnerLease>(new OwnerLease(std::move(state), std::move(watch)));
}

OwnerLease::~OwnerLease() { Release(); }

void OwnerLease::Release() {
  {
    absl::MutexLock lock(&state_->mutex);
    state_->released = true;
    state_->active = false;
  }
  watch_->Stop();
}

bool OwnerLease::active() const {
  absl::MutexLock lock(&state_->mutex);
  return state_->active;
}

}  // namespace labgate::gateway
