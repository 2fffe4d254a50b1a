#include "gateway/backends/open_streams.h"

#include <condition_variable>
#include <mutex>

namespace labgate::gateway {
namespace {

struct Registry {
  std::mutex mutex;
  std::condition_variable none_open;
  std::size_t open = 0;
};

// Never destroyed: reactors may finish during static destruction.
Registry& TheRegistry() {
  static auto* registry = new Registry;
  return *registry;
}

}  // namespace

OpenStreams::Entry::Entry() {
  Registry& registry = TheRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  ++registry.open;
}

OpenStreams::Entry::~Entry() {
  Registry& registry = TheRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  if (--registry.open == 0) registry.none_open.notify_all();
}

std::size_t OpenStreams::count() {
  Registry& registry = TheRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  return registry.open;
}

bool OpenStreams::WaitUntilNone(std::chrono::milliseconds timeout) {
  Registry& registry = TheRegistry();
  std::unique_lock<std::mutex> lock(registry.mutex);
  return registry.none_open.wait_for(lock, timeout, [&] { return registry.open == 0; });
}

}  // namespace labgate::gateway
