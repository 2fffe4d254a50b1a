// requestState: what one key seals, only that key opens, and any change to the text,
// trailing junk included, is refused.
#include "gateway/dialects/mcp_stateless/request_state.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace labgate::gateway::stateless {
namespace {

using nlohmann::json;

const json kState = {{"m", "tools/call"}, {"t", "write"}, {"a", {{"confirm", {{"ok", true}}}}}};

TEST(RequestStateTest, ASealedStateOpensWithTheSameKey) {
  RequestStateCodec codec(std::string(32, 'k'));
  auto opened = codec.Open(codec.Seal(kState));
  ASSERT_TRUE(opened.ok()) << opened.status();
  EXPECT_EQ(*opened, kState);
}

TEST(RequestStateTest, AlteredOrForeignStateIsRefused) {
  RequestStateCodec codec(std::string(32, 'k'));
  const std::string sealed = codec.Seal(kState);
  EXPECT_FALSE(codec.Open(sealed + "-TAMPERED").ok());
  EXPECT_FALSE(codec.Open(sealed + "A").ok());
  EXPECT_FALSE(codec.Open("x" + sealed).ok());
  EXPECT_FALSE(codec.Open("").ok());
  EXPECT_FALSE(codec.Open("no-dot-here").ok());
  std::string flipped = sealed;
  flipped[3] = flipped[3] == 'A' ? 'B' : 'A';  // inside the payload
  EXPECT_FALSE(codec.Open(flipped).ok());
  // Another replica with another key cannot open it; one with the same key can.
  EXPECT_FALSE(RequestStateCodec(std::string(32, 'o')).Open(sealed).ok());
  EXPECT_TRUE(RequestStateCodec(std::string(32, 'k')).Open(sealed).ok());
  // Two processes without a key file each get their own random key.
  EXPECT_FALSE(RequestStateCodec().Open(RequestStateCodec().Seal(kState)).ok());
}

TEST(RequestStateTest, AKeyFileNeedsThirtyTwoBytes) {
  const std::string path = ::testing::TempDir() + "/state.key";
  { std::ofstream(path) << "too short\n"; }
  auto short_key = RequestStateCodec::FromKeyFile(path);
  EXPECT_EQ(short_key.status().code(), absl::StatusCode::kInvalidArgument);
  { std::ofstream(path) << std::string(48, 's') << "\n"; }
  auto loaded = RequestStateCodec::FromKeyFile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(RequestStateCodec(std::string(48, 's')).Open(loaded->Seal(kState)).ok());
  EXPECT_EQ(RequestStateCodec::FromKeyFile(path + ".missing").status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace labgate::gateway::stateless
