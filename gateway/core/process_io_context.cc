#include "gateway/core/process_io_context.h"

#include <memory>
#include <vector>

#include "absl/base/const_init.h"
#include "absl/synchronization/mutex.h"

namespace labgate::gateway {

boost::asio::io_context& ProcessLifetimeIoContext() {
  static absl::Mutex mutex(absl::kConstInit);
  static auto* const kept = new std::vector<std::unique_ptr<boost::asio::io_context>>();
  absl::MutexLock lock(&mutex);
  return *kept->emplace_back(std::make_unique<boost::asio::io_context>());
}

}  // namespace labgate::gateway
