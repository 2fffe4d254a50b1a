// The text helpers' replacement rules, on exact strings.
#include "actions-service/text_rules.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace labgate::actions {
namespace {

TEST(ReplaceWordsInOnePassTest, ReplacementIsNeverRewrittenByALaterRule) {
  // Sequential replacement would turn "act now" into "act soon" and then "take it soon".
  std::vector<size_t> counts;
  std::string out = ReplaceWordsInOnePass("Act now, then act.",
                                          {{"act now", "act soon"}, {"act", "take it"}}, &counts);
  EXPECT_EQ(out, "Act soon, then take it.");
  EXPECT_EQ(counts, (std::vector<size_t>{1, 1}));
}

TEST(ReplaceWordsInOnePassTest, FirstMatchingRuleWinsSoLongerPhrasesGoFirst) {
  std::vector<size_t> counts;
  std::string out = ReplaceWordsInOnePass(
      "All of the following steps, and all of the following.",
      {{"all of the following steps", "these steps"}, {"all of the following", "the following"}},
      &counts);
  EXPECT_EQ(out, "These steps, and the following.");
  EXPECT_EQ(counts, (std::vector<size_t>{1, 1}));
}

TEST(ReplaceWordsInOnePassTest, WholeWordsOnlyAndUtf8Untouched) {
  std::vector<size_t> counts;
  std::string out =
      ReplaceWordsInOnePass("urgently urgent—café URGENT", {{"urgent", "important"}}, &counts);
  EXPECT_EQ(out, "urgently important—café Important");
  EXPECT_EQ(counts, (std::vector<size_t>{2}));
}

TEST(ReplaceWordsInOnePassTest, NoMatchLeavesTextAsIs) {
  std::vector<size_t> counts;
  EXPECT_EQ(ReplaceWordsInOnePass("nothing here", {{"hurry", "take your time"}}, &counts),
            "nothing here");
  EXPECT_EQ(counts, (std::vector<size_t>{0}));
}

}  // namespace
}  // namespace labgate::actions
