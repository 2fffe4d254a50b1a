// Who a gRPC caller of a labgate service is. A caller that may speak for principals (a gateway
// the service trusts) names the principal it acts for in the "labgate-owner" metadata, and may
// relay a person's answer to a confirmation request; every other caller is its own principal.
#pragma once

#include <grpcpp/server_context.h>

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "common/call_context.h"
#include "common/caller_metadata.h"

namespace labgate {

struct Caller {
  std::string principal;
  std::optional<ConfirmationAnswer> confirmation;
};

struct CallerAuthOptions {
  // Every caller may speak for principals: the embedded gateway's in-process server, whose
  // only callers are labgate's own.
  bool trust_every_caller = true;
};

class CallerAuth {
 public:
  explicit CallerAuth(CallerAuthOptions options = {}) : options_(std::move(options)) {}

  // The caller of `context`, or PERMISSION_DENIED saying why it may not act as it asks.
  absl::StatusOr<Caller> Identify(const grpc::ServerContextBase& context) const;

 private:
  CallerAuthOptions options_;
};

}  // namespace labgate
