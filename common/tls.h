// TLS between labgate's processes. A service serves TLS when given a certificate and
// key, and mutual TLS when also given the CA that signs its clients. A client (the
// gateway, labgate-serial calling the session service, labgate-probe) trusts --tls-ca
// and may present its own certificate.
#pragma once

#include <grpcpp/security/credentials.h>
#include <grpcpp/security/server_credentials.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace labgate {

struct ServerTlsFiles {
  std::string cert;       // PEM chain; empty = plaintext
  std::string key;        // PEM private key
  std::string client_ca;  // PEM; non-empty = clients must present a certificate it signed
};

struct ClientTlsFiles {
  std::string ca;    // PEM roots that sign the services; empty = plaintext
  std::string cert;  // optional client certificate (for services that require one)
  std::string key;
};

// Plaintext when no file is named; an error names the flag at fault.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const ServerTlsFiles& files);
absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> MakeChannelCredentials(
    const ClientTlsFiles& files);

// One line for --check-config and the start-up log: "plaintext", "TLS" or "mutual TLS".
std::string DescribeServerTls(const ServerTlsFiles& files);
std::string DescribeClientTls(const ClientTlsFiles& files);

// Reads a PEM file and checks that it holds a block of `kind` ("CERTIFICATE", "PRIVATE KEY").
absl::StatusOr<std::string> ReadPem(const std::string& path, const std::string& flag,
                                    const std::string& kind);

}  // namespace labgate
