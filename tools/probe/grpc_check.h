// labgate-probe grpc: asks grpc.health.v1 whether a service is SERVING.
#pragma once

#include <grpcpp/security/credentials.h>

#include <chrono>
#include <memory>
#include <string>

#include "absl/status/status.h"

namespace labgate::probe {

// OK only when `address` answers SERVING for `service` ("" = the whole server) within
// `timeout`; otherwise the reason, naming the address.
absl::Status CheckGrpcHealth(const std::string& address, const std::string& service,
                             std::shared_ptr<grpc::ChannelCredentials> credentials,
                             std::chrono::milliseconds timeout);

}  // namespace labgate::probe
