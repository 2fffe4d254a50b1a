#include "gateway/backends/open_streams.h"

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace labgate::gateway {
namespace {

struct Registry {
  absl::Mutex mutex;
  absl::CondVar none_open;
  std::size_t open ABSL_GUARDED_BY(mutex) = 0;
};

// Never destroyed: reactors may finish during static destruction.
Registry& TheRegistry() {
  static auto* registry = new Registry;
  return *registry;
}

}  // namespace

OpenStreams::Entry::Entry() {
  Registry& registry = TheRegistry();
  absl::MutexLock lock(&registry.mutex);
  ++registry.open;
}

OpenStreams::Entry::~Entry() {
  Registry& registry = TheRegistry();
  absl::MutexLock lock(&registry.mutex);
  if (--registry.open == 0) registry.none_open.SignalAll();
}

std::size_t OpenStreams::count() {
  Registry& registry = TheRegistry();
  absl::MutexLock lock(&registry.mutex);
  return registry.open;
}

bool OpenStreams::WaitUntilNone(std::chrono::milliseconds timeout) {
  Registry& registry = TheRegistry();
  const absl::Time deadline = absl::Now() + absl::FromChrono(timeout);
  absl::MutexLock lock(&registry.mutex);
  while (registry.open != 0) {
    if (registry.none_open.WaitWithDeadline(&registry.mutex, deadline)) break;  // timed out
  }
  return registry.open == 0;
}

}  // namespace labgate::gateway
