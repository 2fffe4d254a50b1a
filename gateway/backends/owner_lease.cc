#include "gateway/backends/owner_lease.h"

#include <grpcpp/alarm.h>

#include <atomic>
#include <chrono>
#include <utility>
#include <vector>

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
  // Read without the lock on every serial call; set once, under it.
  std::atomic<bool> first_answered{false};
  std::vector<std::function<void()>> waiting ABSL_GUARDED_BY(mutex);
  grpc::Alarm first_answer_bound;

  // The first answer came (or the bound passed): the calls waiting for it go ahead.
  void SettleFirstAnswer() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex) {
    first_answered.store(true, std::memory_order_release);
  }
  std::vector<std::function<void()>> TakeWaiting() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex) {
    std::vector<std::function<void()>> taken;
    taken.swap(waiting);
    return taken;
  }
};

namespace {
// Each waiting call goes ahead on the settling thread, outside the lease's lock.
void RunAll(const std::vector<std::function<void()>>& calls) {
  for (const std::function<void()>& call : calls) call();
}
}  // namespace

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
             std::vector<std::function<void()>> waiting;
             {
               absl::MutexLock lock(&state->mutex);
               state->SettleFirstAnswer();
               waiting = state->TakeWaiting();
               if (!state->released) {
                 if (state->warned) {
                   LG_LOG(kInfo) << "serial lease for " << owner << " is held again";
                 }
                 state->active = true;
                 state->warned = false;
               }
             }
             RunAll(waiting);
           },
       .on_started = nullptr,
       .on_ended =
           [state, owner] {
             std::vector<std::function<void()>> waiting;
             {
               absl::MutexLock lock(&state->mutex);
               // A service that refuses the lease answers the call the same way: it goes on.
               state->SettleFirstAnswer();
               waiting = state->TakeWaiting();
               if (!state->released) {
                 if (!state->warned) {
                   LG_LOG(kWarning)
                       << "serial lease for " << owner << " ended; asking for it again every "
                       << kRetryAfter.count() << " s";
                 }
                 state->active = false;
                 state->warned = true;
               }
             }
             RunAll(waiting);
           }},
      kRetryAfter);
  std::weak_ptr<State> weak = state;
  state->first_answer_bound.Set(std::chrono::system_clock::now() + kFirstAnswerBound, [weak](bool) {
    std::shared_ptr<State> state = weak.lock();
    if (state == nullptr) return;
    std::vector<std::function<void()>> waiting;
    {
      absl::MutexLock lock(&state->mutex);
      state->SettleFirstAnswer();
      waiting = state->TakeWaiting();
    }
    RunAll(waiting);
  });
  return std::shared_ptr<OwnerLease>(new OwnerLease(std::move(state), std::move(watch)));
}

OwnerLease::~OwnerLease() { Release(); }

void OwnerLease::Release() {
  std::vector<std::function<void()>> waiting;
  {
    absl::MutexLock lock(&state_->mutex);
    state_->released = true;
    state_->active = false;
    state_->SettleFirstAnswer();
    waiting = state_->TakeWaiting();
  }
  watch_->Cancel();  // its callbacks keep only the shared state
  RunAll(waiting);
}

bool OwnerLease::first_answered() const {
  return state_->first_answered.load(std::memory_order_acquire);
}

void OwnerLease::WhenFirstAnswered(std::function<void()> then) {
  if (!first_answered()) {
    absl::MutexLock lock(&state_->mutex);
    if (!state_->first_answered.load(std::memory_order_relaxed)) {
      state_->waiting.push_back(std::move(then));
      return;
    }
  }
  then();
}

void OwnerLeases::WhenFirstAnswered(const std::shared_ptr<void>& held, std::function<void()> then) {
  // Acquire made it: one lease per bench.
  auto leases = std::static_pointer_cast<std::vector<std::shared_ptr<OwnerLease>>>(held);
  std::vector<std::shared_ptr<OwnerLease>> unanswered;
  for (const std::shared_ptr<OwnerLease>& lease : *leases) {
    if (!lease->first_answered()) unanswered.push_back(lease);
  }
  if (unanswered.empty()) return then();
  // Each unanswered lease counts down; the last one to answer lets the call go.
  auto remaining = std::make_shared<std::atomic<size_t>>(unanswered.size());
  auto shared_then = std::make_shared<std::function<void()>>(std::move(then));
  for (const std::shared_ptr<OwnerLease>& lease : unanswered) {
    lease->WhenFirstAnswered([remaining, shared_then] {
      if (remaining->fetch_sub(1, std::memory_order_acq_rel) == 1) (*shared_then)();
    });
  }
}

bool OwnerLease::active() const {
  absl::MutexLock lock(&state_->mutex);
  return state_->active;
}

}  // namespace labgate::gateway
