// requestState of the 2026 era, integrity-protected: the client carries it between rounds of
// an input_required exchange, and must not be able to forge or alter it. The payload is
// signed with HMAC-SHA256 under a key that every replica behind one load balancer must
// share (--state-key-file); without one, a random key per process.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace labgate::gateway::stateless {

class RequestStateCodec {
 public:
  // A codec with a fresh random key.
  RequestStateCodec();
  explicit RequestStateCodec(std::string key) : key_(std::move(key)) {}
  // Reads the key from a file (at least 32 bytes of secret).
  static absl::StatusOr<RequestStateCodec> FromKeyFile(const std::string& path);

  // base64url(payload) "." base64url(HMAC-SHA256(key, payload)).
  std::string Seal(const nlohmann::json& state) const;
  // The payload when the signature holds; InvalidArgument otherwise.
  absl::StatusOr<nlohmann::json> Open(const std::string& sealed) const;

 private:
  std::string Sign(const std::string& payload) const;
  std::string key_;
};

}  // namespace labgate::gateway::stateless
