// Test helper: a ToolInvoker callback that takes the reply as a JSON document.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <utility>

#include "absl/status/statusor.h"
#include "gateway/backends/tool_invoker.h"

namespace labgate::gateway::testing {

inline ToolInvoker::Done AsJson(std::function<void(absl::StatusOr<nlohmann::json>)> done) {
  return [done = std::move(done)](absl::StatusOr<BackendReply> reply) {
    if (!reply.ok()) return done(reply.status());
    done(reply->document());
  };
}

}  // namespace labgate::gateway::testing
