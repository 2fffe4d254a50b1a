#include "gateway/backends/unreachable.h"

#include "common/status_map.h"
#include "gateway/backends/backend_channels.h"

namespace labgate::gateway {

absl::Status BackendCallStatus(const grpc::Status& status, grpc::Channel* channel,
                               const std::string& service_name, const std::string& address) {
  if (status.error_code() == grpc::StatusCode::UNAVAILABLE && !address.empty() &&
      channel != nullptr && channel->GetState(false) != GRPC_CHANNEL_READY) {
    return absl::UnavailableError(BackendChannels::DescribeBackend(service_name, address) +
                                  " is not reachable");
  }
  return FromGrpcStatus(status);
}

}  // namespace labgate::gateway
