// How a callback gRPC adapter ends a unary call from an absl::Status answer, through the one
// error table (status_map), so no adapter writes its own.
#pragma once

#include <grpcpp/server_context.h>
#include <grpcpp/support/server_callback.h>

#include <functional>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/grpc_status.h"

namespace labgate {

// The completion of an asynchronous operation: a failure finishes the call with its status;
// a value is written into the response by `fill`, and the call finishes OK.
template <typename T, typename Fill>
std::function<void(absl::StatusOr<T>)> FinishWith(grpc::ServerUnaryReactor* reactor, Fill fill) {
  return [reactor, fill = std::move(fill)](absl::StatusOr<T> outcome) mutable {
    if (!outcome.ok()) {
      reactor->Finish(ToGrpcStatus(outcome.status()));
      return;
    }
    fill(*outcome);
    reactor->Finish(grpc::Status::OK);
  };
}

// Finishes a call answered at once, with `status` (the response already filled when OK).
inline grpc::ServerUnaryReactor* FinishNow(grpc::CallbackServerContext* context,
                                           const absl::Status& status) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpcStatus(status));
  return reactor;
}

}  // namespace labgate
