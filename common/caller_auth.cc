#include "common/caller_auth.h"

#include <string>

#include "common/confirmation_secret.h"
#include "common/secret_compare.h"

namespace labgate {
namespace {

std::optional<std::string> MetadataValue(const grpc::ServerContextBase& context, const char* key) {
  const auto& metadata = context.client_metadata();
  auto it = metadata.find(key);
  if (it == metadata.end()) return std::nullopt;
  return std::string(it->second.data(), it->second.size());
}

// Only a caller that knows the confirmation secret can relay an answer.
std::optional<ConfirmationAnswer> RelayedAnswer(const grpc::ServerContextBase& context) {
  std::optional<std::string> value = MetadataValue(context, kConfirmationMetadataKey);
  if (!value.has_value()) return std::nullopt;
  const size_t first = value->find(':');
  const size_t second = first == std::string::npos ? first : value->find(':', first + 1);
  if (second == std::string::npos ||
      !SecretEquals(value->substr(second + 1), ConfirmationSecret())) {
    return std::nullopt;
  }
  return ConfirmationAnswer{value->substr(0, first), value->substr(first + 1, second - first - 1)};
}

}  // namespace

absl::StatusOr<Caller> CallerAuth::Identify(const grpc::ServerContextBase& context) const {
  Caller caller;
  if (options_.trust_every_caller) {
    caller.principal = MetadataValue(context, kOwnerMetadataKey).value_or("");
    if (caller.principal.empty()) caller.principal = kAnonymousPrincipal;
    caller.confirmation = RelayedAnswer(context);
  } else {
    caller.principal = kAnonymousPrincipal;
  }
  return caller;
}

}  // namespace labgate
