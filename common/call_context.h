// One unary call as a service sees it, whichever way it came: over gRPC from another process
// (common/grpc_unary_call.h) or in process from the embedded gateway (common/local_call.h).
// Each service method is written once, as ServeX(CallContext*, const Request*, Response*),
// and served both ways. Nothing here knows gRPC.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace labgate {

// The principal of a caller that names none and is not authenticated as anyone.
inline constexpr char kAnonymousPrincipal[] = "anonymous";
// Status payloads whose key starts with this reach the caller: in process as they are, over
// gRPC as trailing metadata under the same key (which must then be lower case).
inline constexpr char kCallerPayloadPrefix[] = "labgate-";

// A person's answer to a confirmation request, relayed by the gateway that asked them.
struct ConfirmationAnswer {
  std::string id;
  std::string decision;  // "accept", or why not: "decline", "cancel", "unavailable", "expired"
  // Who answered, for the record ("alice in the labgate console"); empty: not said.
  std::string approver;
};

class CallContext {
 public:
  CallContext(const CallContext&) = delete;
  CallContext& operator=(const CallContext&) = delete;
  virtual ~CallContext() = default;

  // Who is asking, as the transport established it.
  const std::string& principal() const { return principal_; }
  // absl::InfiniteFuture() when the caller set none.
  absl::Time deadline() const { return deadline_; }
  // Set only when a caller that may relay a person's answer relayed one.
  const std::optional<ConfirmationAnswer>& confirmation() const { return confirmation_; }
  // Whether the caller is one of labgate's own that may speak for principals: a trusted
  // gateway over gRPC, or the embedded gateway in process.
  bool speaks_for_principals() const { return speaks_for_principals_; }

  // Whether the caller has given up, or the deadline has passed. Any thread.
  virtual bool IsCancelled() const = 0;
  // Ends the call with `status`; the response is complete by then. Called exactly once, from
  // any thread; the call (this object) may be gone when it returns.
  virtual void Finish(const absl::Status& status) = 0;

 protected:
  CallContext(std::string principal, absl::Time deadline,
              std::optional<ConfirmationAnswer> confirmation, bool speaks_for_principals)
      : principal_(principal.empty() ? std::string(kAnonymousPrincipal) : std::move(principal)),
        deadline_(deadline),
        confirmation_(std::move(confirmation)),
        speaks_for_principals_(speaks_for_principals) {}

  bool DeadlinePassed() const {
    return deadline_ != absl::InfiniteFuture() && absl::Now() >= deadline_;
  }

 private:
  const std::string principal_;
  const absl::Time deadline_;
  const std::optional<ConfirmationAnswer> confirmation_;
  const bool speaks_for_principals_;
};

}  // namespace labgate
