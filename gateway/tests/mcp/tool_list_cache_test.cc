// ToolListCache: pages are shared rather than copied, and a new version of the tools or of
// the access file empties the cache.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "gateway/mcp/mcp_server.h"

namespace labgate::gateway {
namespace {

std::string PrincipalKey(const std::string& principal, const std::string& cursor) {
  std::string key = principal;
  key.push_back('\0');
  return key + cursor;
}

TEST(ToolListCacheTest, AStoredPageIsHandedOutItselfNotACopy) {
  ToolListCache cache;
  auto page = std::make_shared<const std::string>(R"({"tools":[]})");
  cache.Store("", {3, 0}, page);
  std::shared_ptr<const std::string> found = cache.Find("", {3, 0});
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found.get(), page.get());
  EXPECT_EQ(cache.Find("another-cursor", {3, 0}), nullptr);
}

TEST(ToolListCacheTest, ANewToolsOrAccessVersionMissesAndDropsTheOldPages) {
  ToolListCache cache;
  cache.Store(PrincipalKey("vera", ""), {1, 1}, std::make_shared<const std::string>("viewer"));
  EXPECT_EQ(cache.Find(PrincipalKey("vera", ""), {1, 2}), nullptr) << "the access file reloaded";
  EXPECT_EQ(cache.Find(PrincipalKey("vera", ""), {2, 1}), nullptr) << "the tools changed";

  cache.Store(PrincipalKey("vera", ""), {1, 2}, std::make_shared<const std::string>("operator"));
  ASSERT_NE(cache.Find(PrincipalKey("vera", ""), {1, 2}), nullptr);
  EXPECT_EQ(*cache.Find(PrincipalKey("vera", ""), {1, 2}), "operator");
  EXPECT_EQ(cache.Find(PrincipalKey("vera", ""), {1, 1}), nullptr) << "old pages are gone";
}

TEST(ToolListCacheTest, EachPrincipalHasItsOwnPages) {
  ToolListCache cache;
  cache.Store(PrincipalKey("alice", ""), {0, 1}, std::make_shared<const std::string>("a"));
  cache.Store(PrincipalKey("al", "ice"), {0, 1}, std::make_shared<const std::string>("b"));
  EXPECT_EQ(*cache.Find(PrincipalKey("alice", ""), {0, 1}), "a");
  EXPECT_EQ(*cache.Find(PrincipalKey("al", "ice"), {0, 1}), "b");
  EXPECT_EQ(cache.Find(PrincipalKey("bob", ""), {0, 1}), nullptr);
}

}  // namespace
}  // namespace labgate::gateway
