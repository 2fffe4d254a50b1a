#include "common/caller_auth_flags.h"

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "common/tls_flags.h"

ABSL_FLAG(std::vector<std::string>, trusted_gateway, {},
          "Client certificate identities (common name, subject alternative name or subject) of "
          "gateways that may name the principal they act for; needs --tls-client-ca");
ABSL_FLAG(std::string, gateway_token_file, "",
          "File whose first line is the token a gateway presents (authorization: Bearer TOKEN) "
          "to name the principal it acts for");
ABSL_FLAG(std::string, client_token_file, "",
          "File of lines \"NAME TOKEN\": a caller presenting TOKEN is the principal NAME");

namespace labgate {

absl::StatusOr<CallerAuthOptions> CallerAuthFromFlags(std::vector<std::string>* lines) {
  CallerAuthOptions auth;
  for (const std::string& identity : absl::GetFlag(FLAGS_trusted_gateway)) {
    if (!identity.empty()) auth.trusted_gateways.insert(identity);
  }
  if (!auth.trusted_gateways.empty() && ServerTlsFromFlags().client_ca.empty()) {
    return absl::InvalidArgumentError(
        "--trusted-gateway needs --tls-client-ca: gateways are known by their certificates");
  }
  if (const std::string path = absl::GetFlag(FLAGS_gateway_token_file); !path.empty()) {
    absl::StatusOr<std::string> token = ReadTokenFile(path, "--gateway-token-file");
    if (!token.ok()) return token.status();
    auth.gateway_token = *std::move(token);
  }
  if (const std::string path = absl::GetFlag(FLAGS_client_token_file); !path.empty()) {
    auto clients = ReadClientTokenFile(path, "--client-token-file");
    if (!clients.ok()) return clients.status();
    auth.client_tokens = *std::move(clients);
  }
  if (auth.AuthenticatesAnyone()) {
    lines->push_back(absl::StrCat("callers: authenticated (", auth.trusted_gateways.size(),
                                  " trusted gateway certificate(s), gateway token ",
                                  auth.gateway_token.empty() ? "none" : "set", ", ",
                                  auth.client_tokens.size(), " client token(s))"));
  } else {
    lines->push_back(
        "callers: all anonymous; no gateway may name an owner (give --gateway-token-file or "
        "--trusted-gateway to serve a split labgate)");
  }
  return auth;
}

}  // namespace labgate
