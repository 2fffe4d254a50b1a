#include "common/caller_auth.h"

#include <grpcpp/security/auth_context.h>

#include <fstream>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/confirmation_secret.h"
#include "common/secret_compare.h"

namespace labgate {
namespace {

constexpr char kAuthorizationKey[] = "authorization";
constexpr char kBearerPrefix[] = "Bearer ";

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
  return ConfirmationAnswer{value->substr(0, first), value->substr(first + 1, second - first - 1),
                            MetadataValue(context, kApproverMetadataKey).value_or("")};
}

// The identities of the caller's verified certificate, common name first; empty without one.
std::vector<std::string> CertificateIdentities(const grpc::ServerContextBase& context) {
  std::vector<std::string> identities;
  std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
  if (auth == nullptr || !auth->IsPeerAuthenticated()) return identities;
  for (const char* property :
       {"x509_common_name", "x509_subject_alternative_name", "x509_subject"}) {
    for (const grpc::string_ref& value : auth->FindPropertyValues(property)) {
      identities.emplace_back(value.data(), value.size());
    }
  }
  return identities;
}

}  // namespace

absl::StatusOr<Caller> CallerAuth::Identify(const grpc::ServerContextBase& context) const {
  Caller caller;
  const std::string owner = MetadataValue(context, kOwnerMetadataKey).value_or("");
  bool gateway = options_.trust_every_caller;
  std::string own_name;
  if (!gateway) {
    std::optional<std::string> authorization = MetadataValue(context, kAuthorizationKey);
    if (authorization.has_value()) {
      if (!absl::StartsWith(*authorization, kBearerPrefix)) {
        return absl::UnauthenticatedError("the authorization metadata must be \"Bearer TOKEN\"");
      }
      const std::string token = authorization->substr(sizeof(kBearerPrefix) - 1);
      if (!options_.gateway_token.empty() && SecretEquals(token, options_.gateway_token)) {
        gateway = true;
      } else {
        for (const auto& [name, client_token] : options_.client_tokens) {
          if (SecretEquals(token, client_token)) own_name = name;
        }
        if (own_name.empty()) {
          return absl::UnauthenticatedError("the presented token is not known to this service");
        }
      }
    } else {
      const std::vector<std::string> identities = CertificateIdentities(context);
      for (const std::string& identity : identities) {
        if (options_.trusted_gateways.contains(identity)) gateway = true;
      }
      if (!gateway && !identities.empty()) own_name = identities.front();
    }
  }
  if (gateway) {
    caller.speaks_for_principals = true;
    caller.principal = owner.empty() ? kAnonymousPrincipal : owner;
    caller.confirmation = RelayedAnswer(context);
    return caller;
  }
  caller.principal = own_name.empty() ? kAnonymousPrincipal : own_name;
  if (!owner.empty() && owner != caller.principal) {
    return absl::PermissionDeniedError(absl::StrCat(
        "caller ", caller.principal, " may not act for owner ", owner,
        ": only a trusted gateway (--trusted-gateway or --gateway-token-file) may name an owner; "
        "call without ",
        kOwnerMetadataKey, " to act as ", caller.principal));
  }
  return caller;
}

absl::StatusOr<std::string> ReadTokenFile(const std::string& path, const std::string& flag) {
  std::ifstream in(path);
  if (!in) return absl::InvalidArgumentError(absl::StrCat(flag, " ", path, ": cannot be read"));
  std::string line;
  std::getline(in, line);  // an empty file leaves `line` empty, refused below
  std::string token(absl::StripAsciiWhitespace(line));
  if (token.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(flag, " ", path, ": the first line is empty"));
  }
  return token;
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> ReadClientTokenFile(
    const std::string& path, const std::string& flag) {
  std::ifstream in(path);
  if (!in) return absl::InvalidArgumentError(absl::StrCat(flag, " ", path, ": cannot be read"));
  std::vector<std::pair<std::string, std::string>> clients;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const absl::string_view text = absl::StripAsciiWhitespace(line);
    if (text.empty() || text.front() == '#') continue;
    std::vector<std::string> fields =
        absl::StrSplit(text, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    if (fields.size() != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat(flag, " ", path, " line ", number, ": expected \"NAME TOKEN\""));
    }
    for (const auto& [name, token] : clients) {
      if (name == fields[0] || token == fields[1]) {
        return absl::InvalidArgumentError(
            absl::StrCat(flag, " ", path, " line ", number, ": ",
                         name == fields[0] ? "the name " : "the token ", "is given twice"));
      }
    }
    clients.emplace_back(fields[0], fields[1]);
  }
  return clients;
}

}  // namespace labgate
