// How a service method ends its call from an absl::Status answer, so no method writes its own.
#pragma once

#include <functional>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/call_context.h"

namespace labgate {

// The completion of an asynchronous operation: a failure finishes the call with its status;
// a value is written into the response by `fill`, and the call finishes OK.
template <typename T, typename Fill>
std::function<void(absl::StatusOr<T>)> FinishWith(CallContext* call, Fill fill) {
  return [call, fill = std::move(fill)](absl::StatusOr<T> outcome) mutable {
    if (!outcome.ok()) {
      call->Finish(outcome.status());
      return;
    }
    fill(*outcome);
    call->Finish(absl::OkStatus());
  };
}

// Finishes a call answered at once, with `status` (the response already filled when OK).
inline void FinishNow(CallContext* call, const absl::Status& status) { call->Finish(status); }

}  // namespace labgate
