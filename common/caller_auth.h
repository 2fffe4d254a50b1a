// Who a gRPC caller of a labgate service is. A caller that may speak for principals (a gateway
// the service trusts) names the principal it acts for in the "labgate-owner" metadata, and may
// relay a person's answer to a confirmation request. Every other caller is its own principal:
// the name of its client token, the name in its client certificate, or "anonymous". One that
// names another owner is refused with PERMISSION_DENIED.
#pragma once

#include <grpcpp/server_context.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/call_context.h"
#include "common/caller_metadata.h"

namespace labgate {

struct Caller {
  std::string principal;
  std::optional<ConfirmationAnswer> confirmation;
  bool speaks_for_principals = false;  // a trusted gateway (or every caller is trusted)
};

struct CallerAuthOptions {
  // Every caller may speak for principals. Only for a server whose callers are all labgate's
  // own: the embedded gateway's in-process server.
  bool trust_every_caller = false;
  // Certificate identities (a subject's common name, a DNS or URI subject alternative name, or
  // the whole subject as gRPC reports it) of gateways that may speak for principals.
  std::set<std::string> trusted_gateways;
  // A secret whose bearer may speak for principals ("authorization: Bearer TOKEN").
  std::string gateway_token;
  // Named clients' tokens: a caller presenting one is the principal of that name.
  std::vector<std::pair<std::string, std::string>> client_tokens;  // (name, token)

  // Options under which every caller may speak for principals.
  static CallerAuthOptions TrustEveryCaller() {
    CallerAuthOptions options;
    options.trust_every_caller = true;
    return options;
  }

  // Whether anything authenticates callers; without it every caller is anonymous.
  bool AuthenticatesAnyone() const {
    return !trusted_gateways.empty() || !gateway_token.empty() || !client_tokens.empty();
  }
};

class CallerAuth {
 public:
  explicit CallerAuth(CallerAuthOptions options = {}) : options_(std::move(options)) {}

  // The caller of `context`; UNAUTHENTICATED for a token the service does not know, and
  // PERMISSION_DENIED saying why for an owner the caller may not name.
  absl::StatusOr<Caller> Identify(const grpc::ServerContextBase& context) const;

 private:
  CallerAuthOptions options_;
};

// Reads a token file: its first line, trimmed; an error names `flag` and the problem.
absl::StatusOr<std::string> ReadTokenFile(const std::string& path, const std::string& flag);
// Reads a client token file: lines "NAME TOKEN"; blank lines and lines starting with '#'
// are skipped. Two clients with one name or one token are refused.
absl::StatusOr<std::vector<std::pair<std::string, std::string>>> ReadClientTokenFile(
    const std::string& path, const std::string& flag);

}  // namespace labgate
