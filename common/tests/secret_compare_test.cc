#include "common/secret_compare.h"

#include <gtest/gtest.h>

#include <string>

namespace labgate {
namespace {

TEST(SecretEqualsTest, MatchesOnlyTheSameBytes) {
  EXPECT_TRUE(SecretEquals("s3cret-token", "s3cret-token"));
  EXPECT_FALSE(SecretEquals("s3cret-tokeN", "s3cret-token"));
  EXPECT_FALSE(SecretEquals("s3cret-toke", "s3cret-token"));    // a prefix
  EXPECT_FALSE(SecretEquals("s3cret-token-", "s3cret-token"));  // longer
  EXPECT_FALSE(SecretEquals("", "s3cret-token"));
}

TEST(SecretEqualsTest, AnEmptySecretMatchesNothing) {
  EXPECT_FALSE(SecretEquals("", ""));
  EXPECT_FALSE(SecretEquals("x", ""));
}

TEST(SecretEqualsTest, ComparesEmbeddedNulBytes) {
  EXPECT_TRUE(SecretEquals(std::string("a\0b", 3), std::string("a\0b", 3)));
  EXPECT_FALSE(SecretEquals(std::string("a\0c", 3), std::string("a\0b", 3)));
}

}  // namespace
}  // namespace labgate
