#include "gateway/backends/unreachable.h"

#include <atomic>
#include <chrono>
#include <map>
#include <set>

#include "absl/base/thread_annotations.h"
#include "absl/strings/match.h"
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

// gRPC's own words for a connection that failed or broke. labgate's services word their
// UNAVAILABLE otherwise ("device disconnected: ...", "cannot open ...").
bool IsBrokenConnectionText(absl::string_view message) {
  for (absl::string_view prefix :
       {"Socket closed", "Connection reset by peer", "Broken pipe", "GOAWAY received",
        "Transport closed", "Stream removed", "failed to connect to all addresses",
        "keepalive watchdog timeout", "Connection refused"}) {
    if (absl::StartsWith(message, prefix)) return true;
  }
  return false;
}

bool IsUnreachable(bool unavailable, absl::string_view message, grpc::Channel* channel,
                   const std::string& address) {
  if (!unavailable || address.empty() || channel == nullptr) return false;
  return channel->GetState(false) != GRPC_CHANNEL_READY || IsBrokenConnectionText(message);
}

absl::Status Unreachable(const std::string& service_name, const std::string& address) {
  const std::string backend = BackendChannels::DescribeBackend(service_name, address);
  std::string text = backend + " is not reachable";
  NoteDown(backend);
  LogUnreachable(text);
  return absl::UnavailableError(text);
}

}  // namespace

absl::Status BackendCallStatus(const grpc::Status& status, grpc::Channel* channel,
                               const std::string& service_name, const std::string& address) {
  if (IsUnreachable(status.error_code() == grpc::StatusCode::UNAVAILABLE, status.error_message(),
                    channel, address)) {
    return Unreachable(service_name, address);
  }
  return FromGrpcStatus(status);
}

absl::Status BackendCallStatus(const absl::Status& status, grpc::Channel* channel,
                               const std::string& service_name, const std::string& address) {
  if (IsUnreachable(absl::IsUnavailable(status), status.message(), channel, address)) {
    return Unreachable(service_name, address);
  }
  return status;
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
