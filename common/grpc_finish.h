// How a service adapter ends a unary call from an absl::Status answer, through the one error
// table (status_map), so no adapter writes its own.
#pragma once

#include <functional>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/grpc_status.h"
#include "common/unary_call.h"

namespace labgate {

// The completion of an asynchronous operation: a failure finishes the call with its status;
// a value is written into the response by `fill`, and the call finishes OK.
template <typename T, typename Fill>
std::function<void(absl::StatusOr<T>)> FinishWith(UnaryCall* call, Fill fill) {
  return [call, fill = std::move(fill)](absl::StatusOr<T> outcome) mutable {
    if (!outcome.ok()) {
      call->Finish(ToGrpcStatus(outcome.status()));
      return;
    }
    fill(*outcome);
    call->Finish(grpc::Status::OK);
  };
}

// Finishes a call answered at once, with `status` (the response already filled when OK).
inline void FinishNow(UnaryCall* call, const absl::Status& status) {
  call->Finish(ToGrpcStatus(status));
}

}  // namespace labgate
