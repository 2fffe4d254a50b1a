// --tls-cert and --tls-key are shared: labgate-serial presents the same certificate as
// a server and as a client of the session service.
#include "common/tls_flags.h"

#include "absl/flags/flag.h"

ABSL_FLAG(std::string, tls_cert, "", "PEM certificate chain this process presents (enables TLS)");
ABSL_FLAG(std::string, tls_key, "", "PEM private key of --tls-cert");

namespace labgate {

std::string TlsCertFlag() { return absl::GetFlag(FLAGS_tls_cert); }
std::string TlsKeyFlag() { return absl::GetFlag(FLAGS_tls_key); }

}  // namespace labgate
