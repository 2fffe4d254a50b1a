#include "gateway/console/console_csrf.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <sys/random.h>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "common/secret_compare.h"

namespace labgate::gateway::console {
namespace {

std::string HeaderOf(const http::Request& request, const char* name) {
  auto found = request.find(name);
  return found == request.end() ? std::string()
                                : std::string(found->value().data(), found->value().size());
}

}  // namespace

CsrfGuard::CsrfGuard() : key_(32, '\0') {
  size_t filled = 0;
  while (filled < key_.size()) {
    const ssize_t got = ::getrandom(key_.data() + filled, key_.size() - filled, 0);
    if (got > 0) filled += static_cast<size_t>(got);
  }
}

std::string CsrfGuard::TokenFor(const std::string& principal) const {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key_.data(), static_cast<int>(key_.size()),
       reinterpret_cast<const unsigned char*>(principal.data()), principal.size(), digest, &length);
  return absl::BytesToHexString(absl::string_view(reinterpret_cast<const char*>(digest), length));
}

std::optional<std::string> CsrfGuard::Refusal(const http::Request& request,
                                              const std::string& principal) const {
  const std::string origin = absl::AsciiStrToLower(HeaderOf(request, "origin"));
  const std::string host = absl::AsciiStrToLower(HeaderOf(request, "host"));
  if (!origin.empty() && origin != "http://" + host && origin != "https://" + host) {
    return "cross-origin request refused: Origin " + origin + " is not this console's (" + host +
           ")";
  }
  const std::string presented = HeaderOf(request, "x-labgate-csrf");
  if (presented.empty()) {
    return "missing X-Labgate-Csrf header: the console page sends the token whoami gives";
  }
  if (!SecretEquals(presented, TokenFor(principal))) {
    return "wrong X-Labgate-Csrf token for " + principal;
  }
  return std::nullopt;
}

}  // namespace labgate::gateway::console
