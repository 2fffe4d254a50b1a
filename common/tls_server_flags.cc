// Kept apart from the client flags so that each binary's --help lists only the flags
// it reads.
#include "absl/flags/flag.h"
#include "common/tls_flags.h"

ABSL_FLAG(std::string, tls_client_ca, "",
          "PEM CA that signs client certificates; given, clients must present one (mutual TLS)");

namespace labgate {

ServerTlsFiles ServerTlsFromFlags() {
  return {TlsCertFlag(), TlsKeyFlag(), absl::GetFlag(FLAGS_tls_client_ca)};
}

}  // namespace labgate
