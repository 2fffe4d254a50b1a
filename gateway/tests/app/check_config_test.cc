// CheckGatewayConfig: what --check-config reports for the backend options main.cc builds from
// the flags (the flags left at their defaults), and the first problem it refuses.
#include "gateway/app/check_config.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "gateway/tests/temp_dir.h"

namespace labgate::gateway {
namespace {

using Lines = std::vector<std::string>;

class CheckConfigTest : public ::testing::Test {
 protected:
  void SetUp() override { options_.data_dir = dir_; }
  testing::TempDir temp_;
  const std::string& dir_ = temp_.path();
  BackendOptions options_;
};

TEST_F(CheckConfigTest, EverythingEmbeddedByDefault) {
  GatewayConfig config = CheckGatewayConfig(&options_, /*serve_stdio=*/true, {});
  ASSERT_TRUE(config.status.ok()) << config.status;
  EXPECT_EQ(config.lines, (Lines{"session service: embedded", "serial service: embedded",
                                 "actions service: embedded", "embedded sessions.db in " + dir_,
                                 "MCP on stdio"}));
  EXPECT_NE(options_.channel_credentials, nullptr);
}

TEST_F(CheckConfigTest, RemoteServicesAreListedWithTheirTransport) {
  options_.session_addr = "10.0.0.5:50052";
  options_.actions_addr = "[::1]:50053";
  GatewayConfig config = CheckGatewayConfig(&options_, /*serve_stdio=*/false, {});
  ASSERT_TRUE(config.status.ok()) << config.status;
  EXPECT_EQ(config.lines,
            (Lines{"session service at 10.0.0.5:50052", "serial service: embedded",
                   "actions service at [::1]:50053", "to remote services: plaintext"}));
}

TEST_F(CheckConfigTest, BenchesAreParsedIntoTheOptions) {
  options_.serial_addrs = {"lab-a=127.0.0.1:7001", "lab-b=127.0.0.1:7002"};
  GatewayConfig config = CheckGatewayConfig(&options_, /*serve_stdio=*/true, {});
  ASSERT_TRUE(config.status.ok()) << config.status;
  EXPECT_EQ(config.lines[0], "bench lab-a: serial service at 127.0.0.1:7001");
  EXPECT_EQ(config.lines[1], "bench lab-b: serial service at 127.0.0.1:7002");
  ASSERT_EQ(options_.serial_benches.size(), 2u);
  EXPECT_EQ(options_.serial_benches[1].name, "lab-b");
  EXPECT_EQ(options_.serial_addr, "127.0.0.1:7001");  // the first bench answers the rest
}

TEST_F(CheckConfigTest, TheFirstProblemIsRefused) {
  EXPECT_EQ(CheckGatewayConfig(&options_, true, {"extra"}).status,
            absl::InvalidArgumentError("unexpected argument 'extra'"));

  BackendOptions bad_address = options_;
  bad_address.session_addr = "no-port";
  EXPECT_EQ(CheckGatewayConfig(&bad_address, true, {}).status,
            absl::InvalidArgumentError("--session-addr: want HOST:PORT, got 'no-port'"));

  BackendOptions bad_bench = options_;
  bad_bench.serial_addrs = {"a=h:1", "a=h:2"};
  EXPECT_EQ(CheckGatewayConfig(&bad_bench, true, {}).status,
            absl::InvalidArgumentError("--serial-addr: bench 'a' given twice"));

  BackendOptions file_as_dir = options_;
  file_as_dir.data_dir = dir_ + "/a-file";
  std::filesystem::create_directories(dir_);
  {
    std::FILE* file = std::fopen(file_as_dir.data_dir.c_str(), "w");
    std::fclose(file);
  }
  EXPECT_EQ(
      CheckGatewayConfig(&file_as_dir, true, {}).status,
      absl::InvalidArgumentError("--data-dir: '" + file_as_dir.data_dir + "' is not a directory"));
  // With a remote session service the data dir is not used, so not checked.
  file_as_dir.session_addr = "127.0.0.1:1";
  EXPECT_TRUE(CheckGatewayConfig(&file_as_dir, true, {}).status.ok());
}

}  // namespace
}  // namespace labgate::gateway
