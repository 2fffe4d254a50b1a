// Comparing a presented secret (a bearer token, the confirmation secret) with a known one,
// so that the time taken says nothing about how much of it matched.
#pragma once

#include <string_view>

namespace labgate {

// True when `presented` equals `secret`. Constant time in the bytes compared (OpenSSL's
// CRYPTO_memcmp); only the lengths' difference can show. An empty `secret` matches nothing.
bool SecretEquals(std::string_view presented, std::string_view secret);

}  // namespace labgate
