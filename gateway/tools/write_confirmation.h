// When labgate-serial refuses a write or query because a policy `confirm` rule matched
// (FAILED_PRECONDITION with trailers labgate-confirm-rule and labgate-confirm-id), the
// gateway asks the person through the client (elicitation/create) and, where a console is
// served, holds the write on the approval board for an operator there too; the first answer
// goes back with the call, so the service writes only after an approval and records approvals
// and declines, with who gave them, in the port's session. Direct gRPC callers cannot do this:
// the answer carries the confirmation secret (common/confirmation_secret.h).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "common/access/access_control.h"
#include "gateway/approvals/approval_board.h"
#include "gateway/backends/serial_benches.h"
#include "gateway/backends/tool_invoker.h"
#include "gateway/catalog/tool_catalog.h"
#include "gateway/mcp/providers.h"

namespace labgate::gateway {

// How long the person at the client has to answer where no console is served (with one, the
// board's lifetime applies to both).
inline constexpr std::chrono::seconds kConfirmationTimeout{120};

// True when `status` is such a confirmation request.
bool NeedsConfirmation(const absl::Status& status);

// Where approvals may be given besides the client; null members: nowhere else.
struct ApprovalDesk {
  ApprovalBoard* board = nullptr;
  // Whether anyone may approve a rule there (the access file); null: anyone.
  std::shared_ptr<const access::AccessControl> access;
  // The benches a held port is resolved on, to ask who may change it; null: unbenched.
  std::shared_ptr<const SerialBenches> benches;
};

// Asks the person about `arguments` and finishes the call through `done`: the retried
// call's outcome after an approval; otherwise a refusal that says why (declined,
// dismissed, no answer in time, or a client that cannot be asked and no console).
void ConfirmAndRetry(const absl::Status& refusal, const ToolBinding& tool,
                     const nlohmann::json& arguments, ToolInvoker* invoker,
                     ToolInvoker::Options options, const std::shared_ptr<RequestContext>& context,
                     const ApprovalDesk& desk, ToolInvoker::Done done);

}  // namespace labgate::gateway
