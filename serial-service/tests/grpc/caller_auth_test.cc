// Owners that cannot be forged, over real gRPC on 127.0.0.1: labgate-serial takes the owner a
// caller names only from a gateway it trusts, by its token or by its mutual-TLS certificate
// (made here by openssl); every other caller is its own principal, and one that names another
// owner (another client's, or a confirm-exempt one) is refused and changes nothing.
#include "common/caller_auth.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/service_host.h"
#include "common/tls.h"
#include "serial-service/serial_service.h"
#include "serial-service/tests/grpc/grpc_caller.h"
#include "serial-service/tests/serial_test_client.h"

namespace labgate::serial {
namespace {

constexpr char kGatewayToken[] = "gateway-token-7f3a9c1e5b";
constexpr char kPolicy[] = R"json({
  "confirm_exempt": ["robot"],
  "ports": [{"match": "loop://*", "confirm": [{"name": "output-on", "pattern": "^OUTP ON"}]}]
})json";

std::string TempPath(const std::string& name) {
  return absl::StrCat(::testing::TempDir(), "labgate-caller-auth-", getpid(), "-", name);
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class TokenAuthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    policy_ = TempPath("policy.json");
    WriteFile(policy_, kPolicy);
    SerialServiceOptions options;
    options.policy_file = policy_;
    options.caller_auth = CallerAuthOptions{};
    options.caller_auth.gateway_token = kGatewayToken;
    options.caller_auth.client_tokens = {{"alice", "alice-token-1"}, {"bob", "bob-token-2"}};
    auto service = CreateSerialService(options);
    ASSERT_TRUE(service.ok()) << service.status();
    service_ = std::move(*service);
    auto host = ServiceHost::Start("127.0.0.1:0", {service_.get()});
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = std::move(*host);
    channel_ = grpc::CreateChannel(absl::StrCat("127.0.0.1:", host_->port()),
                                   grpc::InsecureChannelCredentials());
  }
  void TearDown() override {
    service_->Shutdown();
    host_->Shutdown(std::chrono::milliseconds(500));
    std::remove(policy_.c_str());
  }
  Caller As(const std::string& token, const std::string& owner = "") {
    return Caller(channel_, token, owner);
  }

  std::string policy_;
  std::unique_ptr<SerialGrpcService> service_;
  std::unique_ptr<ServiceHost> host_;
  std::shared_ptr<grpc::Channel> channel_;
};

TEST_F(TokenAuthTest, AClientIsThePrincipalItsTokenNames) {
  Caller alice = As("alice-token-1");
  ASSERT_TRUE(alice.Open("loop://a").ok());
  absl::StatusOr<v1::GetStatusResponse> status = alice.Status("loop://a");
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->owner(), "alice");
  EXPECT_TRUE(status->owned_by_caller());
  // Naming itself is no forgery.
  EXPECT_TRUE(As("alice-token-1", "alice").Write("loop://a", "hello").ok());
}

TEST_F(TokenAuthTest, AClientThatClaimsAnotherPrincipalsPortIsRefusedAndWritesNothing) {
  ASSERT_TRUE(As("alice-token-1").Open("loop://b").ok());
  grpc::Status forged = As("bob-token-2", "alice").Write("loop://b", "stolen");
  EXPECT_EQ(forged.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_NE(forged.error_message().find("caller bob may not act for owner alice"),
            std::string::npos)
      << forged.error_message();
  // Without a token a caller is anonymous, and may not name an owner either.
  grpc::Status anonymous = As("", "alice").Write("loop://b", "stolen");
  EXPECT_EQ(anonymous.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_NE(anonymous.error_message().find("caller anonymous"), std::string::npos);
  // Bob as himself is not the owner either.
  EXPECT_EQ(As("bob-token-2").Write("loop://b", "stolen").error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
  absl::StatusOr<v1::GetStatusResponse> status = As("alice-token-1").Status("loop://b");
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(status->owner(), "alice");
}

TEST_F(TokenAuthTest, AClientThatClaimsAConfirmExemptOwnerIsRefused) {
  // As "robot" a gateway writes OUTP ON without a person's approval; a client may not pose as it.
  grpc::Status opened = As("alice-token-1", "robot").Open("loop://psu");
  EXPECT_EQ(opened.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  ASSERT_TRUE(As("alice-token-1").Open("loop://psu").ok());
  grpc::Status unapproved = As("alice-token-1").Write("loop://psu", "OUTP ON");
  EXPECT_EQ(unapproved.error_code(), grpc::StatusCode::FAILED_PRECONDITION)
      << "alice needs a person's approval: " << unapproved.error_message();
}

TEST_F(TokenAuthTest, TheGatewayTokenMayNameAnyOwnerIncludingAConfirmExemptOne) {
  Caller as_robot = As(kGatewayToken, "robot");
  ASSERT_TRUE(as_robot.Open("loop://gw").ok());
  EXPECT_TRUE(as_robot.Write("loop://gw", "OUTP ON").ok());
  absl::StatusOr<v1::GetStatusResponse> status = As(kGatewayToken, "robot").Status("loop://gw");
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->owner(), "robot");
  EXPECT_TRUE(status->owned_by_caller());
}

TEST_F(TokenAuthTest, AWrongTokenOrAPrefixOfTheRightOneIsRefused) {
  for (const std::string& token :
       {std::string("not-a-token"), std::string(kGatewayToken).substr(0, 10),
        std::string(kGatewayToken) + "x", std::string("alice-token")}) {
    grpc::Status status = As(token, "alice").Open("loop://w");
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << token;
  }
  // Credentials that are not a bearer token are refused too, saying what is expected.
  auto context = As("").Context();
  context->AddMetadata("authorization", std::string("Basic ") + kGatewayToken);
  v1::OpenPortRequest request;
  request.set_port_name("loop://w");
  request.set_baud_rate(9600);
  v1::OpenPortResponse response;
  grpc::Status basic =
      v1::SerialService::NewStub(channel_)->OpenPort(context.get(), request, &response);
  EXPECT_EQ(basic.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_NE(basic.error_message().find("Bearer TOKEN"), std::string::npos) << basic.error_message();
  // The service keeps serving after them.
  EXPECT_TRUE(As(kGatewayToken, "alice").Open("loop://w").ok());
}

TEST_F(TokenAuthTest, TheStreamsRefuseWhatTheUnaryCallsRefuseAndServeAKnownCaller) {
  ASSERT_TRUE(As("alice-token-1").Open("loop://s").ok());
  ASSERT_TRUE(As("alice-token-1").Write("loop://s", "secret").ok());
  const grpc::Status unary = As("not-a-token").Open("loop://t");
  ASSERT_EQ(unary.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  v1::PortEvent event;
  for (const std::string& token : {std::string("not-a-token"), std::string("alice-token")}) {
    const grpc::Status subscribed = As(token).Subscribe("loop://s", &event);
    EXPECT_EQ(subscribed.error_code(), grpc::StatusCode::UNAUTHENTICATED) << token;
    EXPECT_EQ(subscribed.error_message(), unary.error_message()) << token;
    const grpc::Status watched = As(token).WatchPorts(&event);
    EXPECT_EQ(watched.error_code(), grpc::StatusCode::UNAUTHENTICATED) << token;
    EXPECT_EQ(watched.error_message(), unary.error_message()) << token;
  }
  // A client naming another owner is refused as a Write would be.
  const grpc::Status forged = As("bob-token-2", "alice").Subscribe("loop://s", &event);
  EXPECT_EQ(forged.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_NE(forged.error_message().find("caller bob may not act for owner alice"),
            std::string::npos)
      << forged.error_message();
  EXPECT_EQ(As("bob-token-2", "alice").WatchPorts(&event).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);

  // Known callers are served.
  const grpc::Status subscribed = As("bob-token-2").Subscribe("loop://s", &event);
  ASSERT_TRUE(subscribed.ok()) << subscribed.error_message();
  EXPECT_EQ(event.port_name(), "loop://s");
  EXPECT_EQ(event.type(), v1::PortEvent::TYPE_OPENED);
  const grpc::Status watched = As(kGatewayToken, "alice").WatchPorts(&event);
  ASSERT_TRUE(watched.ok()) << watched.error_message();
  EXPECT_EQ(event.port_name(), "loop://s");
}

TEST(ClientTokenFileTest, BadFilesAreRefusedWithTheLineAtFault) {
  const std::string path = TempPath("clients");
  WriteFile(path, "# lab clients\nalice alice-token-1\n\nbob bob-token-2\n");
  auto clients = ReadClientTokenFile(path, "--client-token-file");
  ASSERT_TRUE(clients.ok()) << clients.status();
  EXPECT_EQ(clients->size(), 2u);
  WriteFile(path, "alice one\nbob one\n");
  EXPECT_NE(ReadClientTokenFile(path, "--client-token-file").status().message().find("line 2"),
            absl::string_view::npos);
  WriteFile(path, "alice\n");
  EXPECT_NE(ReadClientTokenFile(path, "--client-token-file")
                .status()
                .message()
                .find("expected \"NAME TOKEN\""),
            absl::string_view::npos);
  std::remove(path.c_str());
}

// Mutual TLS: a gateway is known by its certificate.
class CertificateAuthTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(TempPath("certs"));
    const std::string script = absl::StrCat(
        "set -e; mkdir -p ", *dir_, "; cd ", *dir_,
        "; o() { openssl \"$@\" 2>/dev/null; }"
        "; o req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=labgate-test-ca"
        " -keyout ca.key -out ca.pem"
        "; make() { o req -newkey rsa:2048 -nodes -subj \"/CN=$1\" -keyout $1.key -out $1.csr"
        "; printf \"$2\" > $1.ext"
        "; o x509 -req -in $1.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2"
        " -extfile $1.ext -out $1.pem; }"
        "; make serial 'subjectAltName=IP:127.0.0.1\\nextendedKeyUsage=serverAuth\\n'"
        "; make labgate-gateway 'extendedKeyUsage=clientAuth\\n'"
        "; make alice 'extendedKeyUsage=clientAuth\\n'");
    ASSERT_EQ(std::system(script.c_str()), 0) << "openssl could not make the certificates";
  }
  static void TearDownTestSuite() {
    std::system(absl::StrCat("rm -rf ", *dir_).c_str());
    delete dir_;
  }

  void SetUp() override {
    SerialServiceOptions options;
    options.caller_auth = CallerAuthOptions{};
    options.caller_auth.trusted_gateways = {"labgate-gateway"};
    auto service = CreateSerialService(options);
    ASSERT_TRUE(service.ok()) << service.status();
    service_ = std::move(*service);
    auto credentials =
        MakeServerCredentials({*dir_ + "/serial.pem", *dir_ + "/serial.key", *dir_ + "/ca.pem"});
    ASSERT_TRUE(credentials.ok()) << credentials.status();
    auto host = ServiceHost::Start("127.0.0.1:0", {service_.get()}, *credentials);
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = std::move(*host);
  }
  void TearDown() override {
    service_->Shutdown();
    host_->Shutdown(std::chrono::milliseconds(500));
  }
  Caller As(const std::string& certificate, const std::string& owner) {
    grpc::SslCredentialsOptions tls;
    tls.pem_root_certs = ReadFile(*dir_ + "/ca.pem");
    tls.pem_private_key = ReadFile(*dir_ + "/" + certificate + ".key");
    tls.pem_cert_chain = ReadFile(*dir_ + "/" + certificate + ".pem");
    return Caller(
        grpc::CreateChannel(absl::StrCat("127.0.0.1:", host_->port()), grpc::SslCredentials(tls)),
        "", owner);
  }

  static std::string* dir_;
  std::unique_ptr<SerialGrpcService> service_;
  std::unique_ptr<ServiceHost> host_;
};
std::string* CertificateAuthTest::dir_ = nullptr;

TEST_F(CertificateAuthTest, TheTrustedGatewaysCertificateMayNameAnOwner) {
  Caller gateway = As("labgate-gateway", "carol");
  ASSERT_TRUE(gateway.Open("loop://tls").ok());
  absl::StatusOr<v1::GetStatusResponse> status = gateway.Status("loop://tls");
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->owner(), "carol");
}

TEST_F(CertificateAuthTest, AnotherCertificateIsItsOwnPrincipalAndMayNotNameAnother) {
  ASSERT_TRUE(As("labgate-gateway", "carol").Open("loop://held").ok());
  grpc::Status forged = As("alice", "carol").Write("loop://held", "stolen");
  EXPECT_EQ(forged.error_code(), grpc::StatusCode::PERMISSION_DENIED) << forged.error_message();
  EXPECT_NE(forged.error_message().find("caller alice may not act for owner carol"),
            std::string::npos)
      << forged.error_message();
  Caller alice = As("alice", "");
  ASSERT_TRUE(alice.Open("loop://mine").ok());
  absl::StatusOr<v1::GetStatusResponse> status = alice.Status("loop://mine");
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->owner(), "alice") << "named after its certificate";
}

}  // namespace
}  // namespace labgate::serial
