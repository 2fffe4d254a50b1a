#include "common/grpc_status.h"

#include <optional>
#include <string>

#include "common/status_map.h"

namespace labgate {

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(MappingFor(status.code()).grpc_code),
                      std::string(status.message()));
}

absl::Status FromGrpcStatus(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  std::optional<absl::StatusCode> code = FromGrpcCode(static_cast<int>(status.error_code()));
  return absl::Status(code.value_or(absl::StatusCode::kUnknown), status.error_message());
}

}  // namespace labgate
