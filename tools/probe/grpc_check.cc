#include "tools/probe/grpc_check.h"

#include <grpcpp/client_context.h>
#include <grpcpp/create_channel.h>

#include "absl/strings/str_cat.h"
#include "grpc/health/v1/health.grpc.pb.h"

namespace labgate::probe {

absl::Status CheckGrpcHealth(const std::string& address, const std::string& service,
                             std::shared_ptr<grpc::ChannelCredentials> credentials,
                             std::chrono::milliseconds timeout) {
  auto channel = grpc::CreateChannel(address, std::move(credentials));
  auto stub = grpc::health::v1::Health::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + timeout);
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(service);
  grpc::health::v1::HealthCheckResponse response;
  grpc::Status status = stub->Check(&context, request, &response);
  const std::string what = service.empty() ? address : absl::StrCat(address, " ", service);
  if (!status.ok()) {
    return absl::UnavailableError(absl::StrCat(what, ": ", status.error_message(), " (code ",
                                               static_cast<int>(status.error_code()), ")"));
  }
  if (response.status() != grpc::health::v1::HealthCheckResponse::SERVING) {
    return absl::UnavailableError(absl::StrCat(
        what, ": ", grpc::health::v1::HealthCheckResponse::ServingStatus_Name(response.status())));
  }
  return absl::OkStatus();
}

}  // namespace labgate::probe
