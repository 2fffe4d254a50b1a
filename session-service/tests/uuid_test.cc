#include "session-service/store/uuid.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

namespace labgate::session {
namespace {

TEST(NewUuidV4Test, IsCanonicalLowerCaseVersion4WithTheRfc4122Variant) {
  const std::regex shape("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
  for (int i = 0; i < 200; ++i) {
    const std::string id = NewUuidV4();
    EXPECT_TRUE(std::regex_match(id, shape)) << id;
  }
}

TEST(NewUuidV4Test, DoesNotRepeat) {
  std::set<std::string> seen;
  for (int i = 0; i < 10000; ++i) EXPECT_TRUE(seen.insert(NewUuidV4()).second);
}

}  // namespace
}  // namespace labgate::session
