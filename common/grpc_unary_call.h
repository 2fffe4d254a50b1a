// The gRPC side of the seam: a callback-API unary call presented to a service method as a
// CallContext (common/call_context.h), with the caller as CallerAuth established it.
#pragma once

#include <grpcpp/server_context.h>
#include <grpcpp/support/server_callback.h>

#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "common/call_context.h"
#include "common/caller_auth.h"
#include "common/grpc_status.h"

namespace labgate {

// Lives until Finish hands the status to the call's reactor.
class GrpcUnaryCall final : public CallContext {
 public:
  GrpcUnaryCall(grpc::CallbackServerContext* context, Caller caller)
      : CallContext(std::move(caller.principal), absl::FromChrono(context->deadline()),
                    std::move(caller.confirmation), caller.speaks_for_principals),
        context_(context),
        reactor_(context->DefaultReactor()) {}

  bool IsCancelled() const override { return context_->IsCancelled(); }
  void Finish(const absl::Status& status) override {
    status.ForEachPayload([this](absl::string_view key, const absl::Cord& value) {
      if (absl::StartsWith(key, kCallerPayloadPrefix)) {
        context_->AddTrailingMetadata(std::string(key), std::string(value));
      }
    });
    grpc::ServerUnaryReactor* reactor = reactor_;
    delete this;
    reactor->Finish(ToGrpcStatus(status));
  }
  grpc::ServerUnaryReactor* reactor() const { return reactor_; }

 private:
  grpc::CallbackServerContext* context_;
  grpc::ServerUnaryReactor* reactor_;
};

// The callback API's entry for a unary method whose one implementation is `body`: the caller
// is identified by `auth` first, and one it refuses never reaches `body`.
template <typename Service, typename Request, typename Response>
grpc::ServerUnaryReactor* ServeCallback(
    Service* service, void (Service::*body)(CallContext*, const Request*, Response*),
    const CallerAuth& auth, grpc::CallbackServerContext* context, const Request* request,
    Response* response) {
  absl::StatusOr<Caller> caller = auth.Identify(*context);
  if (!caller.ok()) {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(ToGrpcStatus(caller.status()));
    return reactor;
  }
  auto* call = new GrpcUnaryCall(context, *std::move(caller));
  grpc::ServerUnaryReactor* reactor = call->reactor();
  (service->*body)(call, request, response);
  return reactor;
}

}  // namespace labgate
