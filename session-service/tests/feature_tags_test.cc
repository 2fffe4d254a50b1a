#include "session-service/store/feature_tags.h"

#include "gtest/gtest.h"

namespace labgate::session {
namespace {

using Tags = std::vector<std::string>;

TEST(FeatureTagsTest, SplitsOnCommasAndWhitespace) {
  EXPECT_EQ(NormaliseFeatureTags("scpi,idn query\tserial\nrx"),
            (Tags{"scpi", "idn", "query", "serial", "rx"}));
}

TEST(FeatureTagsTest, TrimsLowerCasesAndDropsEmpty) {
  EXPECT_EQ(NormaliseFeatureTags("  SCPI ,, ,Idn  ,"), (Tags{"scpi", "idn"}));
  EXPECT_TRUE(NormaliseFeatureTags(" , ,, ").empty());
  EXPECT_TRUE(NormaliseFeatureTags("").empty());
}

TEST(FeatureTagsTest, DeduplicatesKeepingFirstOrder) {
  EXPECT_EQ(NormaliseFeatureTags("b, a, B, c, a"), (Tags{"b", "a", "c"}));
}

TEST(FeatureTagsTest, JoinsWithCommas) {
  EXPECT_EQ(JoinFeatureTags({"scpi", "idn"}), "scpi,idn");
  EXPECT_EQ(JoinFeatureTags({}), "");
}

}  // namespace
}  // namespace labgate::session
