// Kept apart from the server flags so that each binary's --help lists only the flags
// it reads.
#include "absl/flags/flag.h"
#include "common/tls_flags.h"

ABSL_FLAG(std::string, tls_ca, "",
          "PEM CA that signs the labgate services called (enables TLS to them)");

namespace labgate {

ClientTlsFiles ClientTlsFromFlags() {
  return {absl::GetFlag(FLAGS_tls_ca), TlsCertFlag(), TlsKeyFlag()};
}

}  // namespace labgate
