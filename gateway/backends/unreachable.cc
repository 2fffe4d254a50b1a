#include "gateway/backends/unreachable.h"

#include <atomic>
#include <chrono>
#include <map>
#include <set>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "common/grpc_status.h"
#include "common/log.h"
#include "gateway/backends/backend_channels.h"

namespace labgate::gateway {
namespace {

// Backends reported down, so that their return is reported once too.
ABSL_CONST_INIT absl::Mutex down_mutex(absl::kConstInit);
std::set<std::string> down ABSL_GUARDED_BY(down_mutex);  // DescribeBackend() texts
std::atomic<int> down_count{0};

// When each unreachable text was last logged.
ABSL_CONST_INIT absl::Mutex logged_mutex(absl::kConstInit);
std::map<std::string, std::chrono::steady_clock::time_point> last_logged
    ABSL_GUARDED_BY(logged_mutex);

void NoteDown(const std::string& backend) {
  absl::MutexLock lock(&down_mutex);
  if (down.insert(backend).second) down_count.fetch_add(1);
}

// Logs that a backend is down at most every 10 s, so a busy client does not flood stderr.
void LogUnreachable(const std::string& text) {
  const auto now = std::chrono::steady_clock::now();
  {
    absl::MutexLock lock(&logged_mutex);
    auto [it, first] = last_logged.try_emplace(text, now);
    if (!first && now - it->second < std::chrono::seconds(10)) return;
    it->second = now;
  }
  LG_LOG(kWarning) << text;
}

}  // namespace

absl::Status BackendCallStatus(const grpc::Status& status, grpc::Channel* channel,
                               const std::string& service_name, const std::string& address) {
  if (status.error_code() == grpc::StatusCode::UNAVAILABLE && !address.empty() &&
      channel != nullptr && channel->GetState(false) != GRPC_CHANNEL_READY) {
    const std::string backend = BackendChannels::DescribeBackend(service_name, address);
    std::string text = backend + " is not reachable";
    NoteDown(backend);
    LogUnreachable(text);
    return absl::UnavailableError(text);
  }
  return FromGrpcStatus(status);
}

void NoteBackendAnswered(const std::string& service_name, const std::string& address) {
  if (down_count.load(std::memory_order_relaxed) == 0 || address.empty()) return;
  const std::string backend = BackendChannels::DescribeBackend(service_name, address);
  {
    absl::MutexLock lock(&down_mutex);
    if (down.erase(backend) == 0) return;
    down_count.fetch_sub(1);
  }
  LG_LOG(kInfo) << backend << " is reachable again";
}

}  // namespace labgate::gateway
