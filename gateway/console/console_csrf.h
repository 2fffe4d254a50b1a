// What makes a console POST the console page's own: the same origin (an Origin header, which
// browsers send on every POST, must name the Host the request came to) and a per-principal
// token the page reads from whoami (X-Labgate-Csrf), which a page of another origin cannot.
#pragma once

#include <optional>
#include <string>

#include "gateway/http/http_connection.h"

namespace labgate::gateway::console {

class CsrfGuard {
 public:
  // A fresh random key per process: tokens do not outlive the gateway.
  CsrfGuard();
  // The token of `principal` (hex HMAC-SHA256 under the process's key).
  std::string TokenFor(const std::string& principal) const;
  // Why a state-changing request from `principal` is refused (403), or none.
  std::optional<std::string> Refusal(const http::Request& request,
                                     const std::string& principal) const;

 private:
  std::string key_;
};

}  // namespace labgate::gateway::console
