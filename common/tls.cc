#include "common/tls.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace labgate {

absl::StatusOr<std::string> ReadPem(const std::string& path, const std::string& flag,
                                    const std::string& kind) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InvalidArgumentError(absl::StrCat(flag, ": cannot read '", path, "'"));
  std::stringstream text;
  text << in.rdbuf();
  std::string pem = text.str();
  // "PRIVATE KEY" also matches "RSA PRIVATE KEY" and "EC PRIVATE KEY".
  if (pem.find("-----BEGIN ") == std::string::npos ||
      pem.find(kind + "-----") == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(flag, ": '", path, "' holds no PEM ", kind));
  }
  return pem;
}

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const ServerTlsFiles& files) {
  if (files.cert.empty() && files.key.empty()) {
    if (!files.client_ca.empty()) {
      return absl::InvalidArgumentError("--tls-client-ca needs --tls-cert and --tls-key");
    }
    return grpc::InsecureServerCredentials();
  }
  if (files.cert.empty() || files.key.empty()) {
    return absl::InvalidArgumentError("--tls-cert and --tls-key go together");
  }
  auto cert = ReadPem(files.cert, "--tls-cert", "CERTIFICATE");
  if (!cert.ok()) return cert.status();
  auto key = ReadPem(files.key, "--tls-key", "PRIVATE KEY");
  if (!key.ok()) return key.status();
  grpc::SslServerCredentialsOptions options;
  options.pem_key_cert_pairs.push_back({*key, *cert});
  if (!files.client_ca.empty()) {
    auto ca = ReadPem(files.client_ca, "--tls-client-ca", "CERTIFICATE");
    if (!ca.ok()) return ca.status();
    options.pem_root_certs = *ca;
    options.client_certificate_request = GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
  }
  return grpc::SslServerCredentials(options);
}

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> MakeChannelCredentials(
    const ClientTlsFiles& files) {
  if (files.ca.empty()) {
    if (!files.cert.empty() || !files.key.empty()) {
      return absl::InvalidArgumentError("a client --tls-cert/--tls-key needs --tls-ca");
    }
    return grpc::InsecureChannelCredentials();
  }
  if (files.cert.empty() != files.key.empty()) {
    return absl::InvalidArgumentError("--tls-cert and --tls-key go together");
  }
  grpc::SslCredentialsOptions options;
  auto ca = ReadPem(files.ca, "--tls-ca", "CERTIFICATE");
  if (!ca.ok()) return ca.status();
  options.pem_root_certs = *ca;
  if (!files.cert.empty()) {
    auto cert = ReadPem(files.cert, "--tls-cert", "CERTIFICATE");
    if (!cert.ok()) return cert.status();
    auto key = ReadPem(files.key, "--tls-key", "PRIVATE KEY");
    if (!key.ok()) return key.status();
    options.pem_cert_chain = *cert;
    options.pem_private_key = *key;
  }
  return grpc::SslCredentials(options);
}

std::string DescribeServerTls(const ServerTlsFiles& files) {
  if (files.cert.empty()) return "plaintext";
  if (files.client_ca.empty()) return absl::StrCat("TLS (certificate ", files.cert, ")");
  return absl::StrCat("mutual TLS (certificate ", files.cert, ", client CA ", files.client_ca, ")");
}

std::string DescribeClientTls(const ClientTlsFiles& files) {
  if (files.ca.empty()) return "plaintext";
  if (files.cert.empty()) return absl::StrCat("TLS (CA ", files.ca, ")");
  return absl::StrCat("TLS (CA ", files.ca, ", client certificate ", files.cert, ")");
}

}  // namespace labgate
