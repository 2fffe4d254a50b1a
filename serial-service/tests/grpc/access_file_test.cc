// The access file in labgate-serial, over real gRPC on 127.0.0.1: direct callers (named by
// their tokens) and the principals a trusted gateway speaks for are bound by the same
// ports and roles, refusals name what is missing, and a reload applies to ports already open.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/access/access_control.h"
#include "common/service_host.h"
#include "serial-service/serial_service.h"
#include "serial-service/tests/grpc/grpc_caller.h"

namespace labgate::serial {
namespace {

constexpr char kGatewayToken[] = "gateway-token-5d2e8a";
constexpr char kAccess[] = R"json({
  "principals": {
    "vera": {"role": "viewer"},
    "olga": {"role": "operator", "ports": ["loop://lab-*"]},
    "carl": {"role": "operator", "ports": ["loop://lab-*"], "read_only": true}
  }
})json";

class AccessFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = absl::StrCat(::testing::TempDir(), "labgate-access-", getpid(), ".json");
    Write(kAccess);
    auto access = access::AccessControl::FromFile(path_);
    ASSERT_TRUE(access.ok()) << access.status();
    access_ = *access;
    SerialServiceOptions options;
    options.access = access_;
    options.caller_auth = CallerAuthOptions{};
    options.caller_auth.gateway_token = kGatewayToken;
    options.caller_auth.client_tokens = {
        {"vera", "vera-token"}, {"olga", "olga-token"}, {"mallory", "mallory-token"}};
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
    std::remove(path_.c_str());
  }
  void Write(const std::string& text) { std::ofstream(path_, std::ios::trunc) << text; }
  Caller As(const std::string& token, const std::string& owner = "") {
    return Caller(channel_, token, owner);
  }

  std::string path_;
  std::shared_ptr<access::AccessControl> access_;
  std::unique_ptr<SerialGrpcService> service_;
  std::unique_ptr<ServiceHost> host_;
  std::shared_ptr<grpc::Channel> channel_;
};

TEST_F(AccessFileTest, ADirectViewerMayNotOpenOrWrite) {
  Caller vera = As("vera-token");
  grpc::Status opened = vera.Open("loop://lab-1");
  EXPECT_EQ(opened.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(
      opened.error_message(),
      absl::StrCat("vera may not change port loop://lab-1: vera (viewer) is read-only in ", path_));
}

TEST_F(AccessFileTest, AnOperatorUsesItsPortsAndNoOthers) {
  Caller olga = As("olga-token");
  ASSERT_TRUE(olga.Open("loop://lab-1").ok());
  EXPECT_TRUE(olga.Write("loop://lab-1", "VOLT 5\n").ok());
  grpc::Status other = olga.Open("loop://bench-9");
  EXPECT_EQ(other.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(
      other.error_message(),
      absl::StrCat("olga may not use port loop://bench-9: it is not among its ports in ", path_));
}

TEST_F(AccessFileTest, APrincipalNotInTheFileMayDoNothing) {
  grpc::Status opened = As("mallory-token").Open("loop://lab-1");
  EXPECT_EQ(opened.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_NE(opened.error_message().find("mallory may do nothing here"), std::string::npos)
      << opened.error_message();
}

TEST_F(AccessFileTest, TheGatewaysPrincipalsAreBoundByTheSameFile) {
  // The gateway speaks for http:olga and for a stdio client; the file names them olga and
  // stdio (absent here, so refused).
  EXPECT_TRUE(As(kGatewayToken, "http:olga").Open("loop://lab-2").ok());
  EXPECT_EQ(As(kGatewayToken, "http:vera").Open("loop://lab-3").error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  grpc::Status stdio = As(kGatewayToken, "stdio-0123456789abcdef").Open("loop://lab-4");
  EXPECT_EQ(stdio.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_NE(stdio.error_message().find("stdio may do nothing here"), std::string::npos);
}

TEST_F(AccessFileTest, AReloadThatTakesAPortAwayAppliesToItWhileOpen) {
  Caller olga = As("olga-token");
  ASSERT_TRUE(olga.Open("loop://lab-5").ok());
  ASSERT_TRUE(olga.Write("loop://lab-5", "a").ok());
  Write(R"json({"principals": {"olga": {"role": "operator", "read_only": true}}})json");
  ASSERT_TRUE(access_->Reload().ok());
  grpc::Status refused = olga.Write("loop://lab-5", "b");
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_NE(refused.error_message().find("olga may not change port loop://lab-5"),
            std::string::npos)
      << refused.error_message();
  // Reading what the port holds is still allowed.
  EXPECT_TRUE(olga.Status("loop://lab-5").ok());
}

TEST_F(AccessFileTest, OnlyTheGatewayMayCloseAnothersPortAndItMustSayWhoAndWhy) {
  Caller olga = As("olga-token");
  ASSERT_TRUE(olga.Open("loop://lab-6").ok());
  // A direct caller, even one that may use the port, may not close another's port this way.
  grpc::Status direct = As("olga-token").ForceClose("loop://lab-6", "olga", "mine anyway");
  EXPECT_EQ(direct.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_NE(direct.error_message().find("only labgate's console may"), std::string::npos)
      << direct.error_message();
  Caller gateway = As(kGatewayToken, "http:alice");
  EXPECT_EQ(gateway.ForceClose("loop://lab-6", "alice", "").error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(gateway.ForceClose("loop://lab-99", "alice", "tidy").error_code(),
            grpc::StatusCode::NOT_FOUND);
  ASSERT_TRUE(olga.Write("loop://lab-6", "a").ok());  // nothing above closed it
  ASSERT_TRUE(gateway.ForceClose("loop://lab-6", "alice", "stuck").ok());
  EXPECT_EQ(olga.Write("loop://lab-6", "b").error_code(), grpc::StatusCode::FAILED_PRECONDITION);
}

TEST_F(AccessFileTest, ASubscriberMayWatchOnlyThePortsItMayUse) {
  v1::PortEvent event;
  grpc::Status other = As("olga-token").Subscribe("loop://bench-9", &event);
  EXPECT_EQ(other.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(
      other.error_message(),
      absl::StrCat("olga may not use port loop://bench-9: it is not among its ports in ", path_));
  grpc::Status stranger = As("mallory-token").Subscribe("loop://lab-7", &event);
  EXPECT_EQ(stranger.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_NE(stranger.error_message().find("mallory may do nothing here"), std::string::npos)
      << stranger.error_message();
  EXPECT_EQ(As(kGatewayToken, "http:olga").Subscribe("loop://bench-9", &event).error_code(),
            grpc::StatusCode::PERMISSION_DENIED)
      << "the gateway's principals are bound by the same file";
  EXPECT_EQ(As("olga-token-x").Subscribe("loop://lab-7", &event).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);

  grpc::Status mine = As("olga-token").Subscribe("loop://lab-7", &event);
  ASSERT_TRUE(mine.ok()) << mine.error_message();
  EXPECT_EQ(event.port_name(), "loop://lab-7");
  EXPECT_TRUE(As("vera-token").Subscribe("loop://lab-7", &event).ok())
      << "watching takes nothing from the port: a viewer may";
  EXPECT_TRUE(As(kGatewayToken).Subscribe("loop://bench-9", &event).ok())
      << "the gateway itself, naming nobody (its console, its resource subscriptions)";
}

}  // namespace
}  // namespace labgate::serial
