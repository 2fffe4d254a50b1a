#include "gateway/backends/unreachable.h"

#include <chrono>
#include <map>
#include <mutex>

#include "common/log.h"
#include "common/status_map.h"
#include "gateway/backends/backend_channels.h"

namespace labgate::gateway {
namespace {

// Logs that a backend is down at most every 10 s, so a busy client does not flood stderr.
void LogUnreachable(const std::string& text) {
  static std::mutex mutex;
  static std::map<std::string, std::chrono::steady_clock::time_point> last_logged;
  const auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard<std::mutex> lock(mutex);
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
    std::string text =
        BackendChannels::DescribeBackend(service_name, address) + " is not reachable";
    LogUnreachable(text);
    return absl::UnavailableError(text);
  }
  return FromGrpcStatus(status);
}

}  // namespace labgate::gateway
