// When a call that changes state fails with UNAVAILABLE or DEADLINE_EXCEEDED, the
// backend may have done the work anyway. For requests that carry an idempotency_key
// field (append_message), the error text says so and tells the caller how to retry
// safely.
#pragma once

#include <google/protobuf/descriptor.h>

#include <nlohmann/json.hpp>
#include <string>

#include "absl/status/status.h"

namespace labgate::gateway {

// What to add to such a failure of `method` called with `arguments`; empty when the
// method takes no idempotency key.
std::string UncertainOutcomeAdvice(const google::protobuf::MethodDescriptor& method,
                                   const nlohmann::json& arguments);

// `status` with `advice` added when it is UNAVAILABLE or DEADLINE_EXCEEDED.
absl::Status ExplainUncertainOutcome(const std::string& advice, absl::Status status);

}  // namespace labgate::gateway
