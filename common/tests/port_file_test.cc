#include "common/port_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "common/service_bootstrap.h"

namespace labgate {
namespace {

std::filesystem::path TempDir() {
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("labgate_port_file_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

std::string Contents(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(PortFileTest, WritesThePortAndANewlineAndLeavesNoTemporary) {
  const std::filesystem::path file = TempDir() / "service.port";
  ASSERT_TRUE(WritePortFile(file.string(), 50123).ok());
  EXPECT_EQ(Contents(file), "50123\n");
  EXPECT_FALSE(std::filesystem::exists(file.string() + ".tmp"));
  // A second start replaces the first port.
  ASSERT_TRUE(WritePortFile(file.string(), 7).ok());
  EXPECT_EQ(Contents(file), "7\n");
}

TEST(PortFileTest, EmptyPathWritesNothing) { EXPECT_TRUE(WritePortFile("", 1).ok()); }

TEST(PortFileTest, UnwritablePlaceIsAnErrorNamingTheFile) {
  const std::string file = (TempDir() / "no-such-dir" / "x.port").string();
  absl::Status status = WritePortFile(file, 1);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(status.message().find("no-such-dir"), absl::string_view::npos);
}

TEST(ServiceUsageTest, TheBinarysOwnFlagsSitAmongTheSharedOnes) {
  EXPECT_EQ(ServiceUsage("labgate-session", "[--data-dir DIR]"),
            "labgate-session [--listen HOST:PORT] [--port-file FILE] [--data-dir DIR] "
            "[--tls-cert FILE --tls-key FILE [--tls-client-ca FILE]] [--metrics-listen HOST:PORT] "
            "[--log-level LEVEL] [--log-format json] [--check-config]");
  EXPECT_EQ(ServiceUsage("x", "").find("x [--listen HOST:PORT] [--port-file FILE] [--tls-cert"),
            0u);
}

TEST(BoundAddressTest, ReplacesThePortOfTheListenAddress) {
  EXPECT_EQ(BoundAddress("127.0.0.1:0", 41000), "127.0.0.1:41000");
  EXPECT_EQ(BoundAddress("[::1]:0", 5), "[::1]:5");
  EXPECT_EQ(BoundAddress("localhost", 5), "localhost:5");
}

}  // namespace
}  // namespace labgate
