#include "common/secret_compare.h"

#include <openssl/crypto.h>

namespace labgate {

bool SecretEquals(std::string_view presented, std::string_view secret) {
  // Compare `secret` with itself when the lengths differ, so the work is the same either way.
  const bool same_size = presented.size() == secret.size();
  const char* other = same_size ? presented.data() : secret.data();
  const bool equal = CRYPTO_memcmp(secret.data(), other, secret.size()) == 0;
  return same_size && equal && !secret.empty();
}

}  // namespace labgate
