// The TLS command-line flags shared by labgate's binaries (see common/tls.h).
#pragma once

#include <string>

#include "common/tls.h"

namespace labgate {

// --tls-cert, --tls-key, --tls-client-ca: what a service serves with.
ServerTlsFiles ServerTlsFromFlags();
// --tls-ca, --tls-cert, --tls-key: what a client calls labgate services with.
ClientTlsFiles ClientTlsFromFlags();

// The shared --tls-cert and --tls-key values (defined once for both roles).
std::string TlsCertFlag();
std::string TlsKeyFlag();

}  // namespace labgate
