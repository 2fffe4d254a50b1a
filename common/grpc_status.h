// absl::Status to and from grpc::Status, through the one error table (common/status_map).
#pragma once

#include <grpcpp/support/status.h>

#include "absl/status/status.h"

namespace labgate {

grpc::Status ToGrpcStatus(const absl::Status& status);
absl::Status FromGrpcStatus(const grpc::Status& status);

}  // namespace labgate
