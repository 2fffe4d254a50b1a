// The completion callback for a unary call on gRPC's callback API. gRPC copies the callback
// it is given inside its own (uninstrumented) code once the call is set up, and runs it on
// one of its threads; when the call fails at once (a service that is down), ThreadSanitizer
// sees that copy's writes and the callback's reads with no hand-off between them and
// reports a race. The callback handed to gRPC therefore holds a single pointer to the real
// one, which is made before the call starts.
#pragma once

#include <grpcpp/support/status.h>

#include <functional>
#include <memory>
#include <utility>

#include "common/tsan_handoff.h"

namespace labgate {

template <typename Fn>
std::function<void(grpc::Status)> OncePointerCallback(Fn fn) {
  auto* held = new Fn(std::move(fn));
  HandOff(held);  // gRPC's hand-off to the thread that runs it is not instrumented
  return [held](grpc::Status status) {  // gRPC runs it exactly once
    TakeOver(held);
    std::unique_ptr<Fn> owned(held);
    (*owned)(std::move(status));
  };
}

}  // namespace labgate
