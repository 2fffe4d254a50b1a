#include "gateway/dialects/mcp_stateless/request_state.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <fstream>
#include <sstream>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "common/secret_compare.h"

namespace labgate::gateway::stateless {

RequestStateCodec::RequestStateCodec() {
  key_.resize(32);
  RAND_bytes(reinterpret_cast<unsigned char*>(key_.data()), static_cast<int>(key_.size()));
}

absl::StatusOr<RequestStateCodec> RequestStateCodec::FromKeyFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return absl::NotFoundError(absl::StrCat("cannot read --state-key-file ", path));
  std::stringstream contents;
  contents << file.rdbuf();
  std::string key = contents.str();
  while (!key.empty() && (key.back() == '\n' || key.back() == '\r')) key.pop_back();
  if (key.size() < 32) {
    return absl::InvalidArgumentError(absl::StrCat("--state-key-file ", path, " holds ", key.size(),
                                                   " bytes; a key needs at least 32"));
  }
  return RequestStateCodec(std::move(key));
}

std::string RequestStateCodec::Sign(const std::string& payload) const {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int mac_size = 0;
  HMAC(EVP_sha256(), key_.data(), static_cast<int>(key_.size()),
       reinterpret_cast<const unsigned char*>(payload.data()), payload.size(), mac, &mac_size);
  return std::string(reinterpret_cast<const char*>(mac), mac_size);
}

std::string RequestStateCodec::Seal(const nlohmann::json& state) const {
  std::string payload = state.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return absl::StrCat(absl::WebSafeBase64Escape(payload), ".",
                      absl::WebSafeBase64Escape(Sign(payload)));
}

absl::StatusOr<nlohmann::json> RequestStateCodec::Open(const std::string& sealed) const {
  const auto invalid =
      absl::InvalidArgumentError("requestState was not issued by this server or has been altered");
  size_t dot = sealed.find('.');
  if (dot == std::string::npos) return invalid;
  std::string payload, mac;
  if (!absl::WebSafeBase64Unescape(sealed.substr(0, dot), &payload) ||
      !absl::WebSafeBase64Unescape(sealed.substr(dot + 1), &mac)) {
    return invalid;
  }
  std::string expected = Sign(payload);
  if (!SecretEquals(mac, expected)) return invalid;
  nlohmann::json state = nlohmann::json::parse(payload, nullptr, /*allow_exceptions=*/false);
  if (state.is_discarded() || !state.is_object()) return invalid;
  return state;
}

}  // namespace labgate::gateway::stateless
