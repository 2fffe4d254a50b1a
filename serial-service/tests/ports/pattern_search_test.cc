// FindEarliest: wait_for's search over captured bytes.
#include "serial-service/ports/pattern_search.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace labgate::serial {
namespace {

std::vector<CompiledPattern> Compile(const std::vector<std::string>& patterns,
                                     PatternInput input = PatternInput::kUtf8) {
  std::vector<CompiledPattern> compiled;
  for (const std::string& pattern : patterns) {
    absl::StatusOr<CompiledPattern> one = CompilePattern(pattern, input, "test");
    EXPECT_TRUE(one.ok()) << one.status();
    if (one.ok()) compiled.push_back(*one);
  }
  return compiled;
}

TEST(PatternSearchTest, TheEarliestMatchWinsAndATieGoesToThePatternListedFirst) {
  const std::string text = "boot\nlogin: Password: ";
  std::optional<PatternMatch> found = FindEarliest(Compile({"Password:", "login:", "log"}), text);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found.value().pattern_index, 1);
  EXPECT_EQ(text.substr(found.value().begin, found.value().end - found.value().begin), "login:");
  found = FindEarliest(Compile({"log", "login:"}), text);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found.value().pattern_index, 0);
}

TEST(PatternSearchTest, GroupsComeBackInOrderAndAnAbsentOneIsEmpty) {
  std::optional<PatternMatch> found =
      FindEarliest(Compile({"V=(\\d+)(mV)?(V)?"}), "reading V=12V ok");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found.value().groups, (std::vector<std::string>{"12", "", "V"}));
}

TEST(PatternSearchTest, NoMatchIsNothingAndLinesAreOnlySpecialWhenThePatternSaysSo) {
  EXPECT_FALSE(FindEarliest(Compile({"^login"}), "boot\nlogin: ").has_value());
  EXPECT_TRUE(FindEarliest(Compile({"(?m)^login"}), "boot\nlogin: ").has_value());
  EXPECT_FALSE(FindEarliest(Compile({"OK"}), "").has_value());
}

TEST(PatternSearchTest, BytesMatchByteForByte) {
  const std::string data("\x02\x10\xff\x03", 4);
  std::optional<PatternMatch> found =
      FindEarliest(Compile({"\\x10\\xff"}, PatternInput::kBytes), data);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found.value().begin, 1u);
  EXPECT_EQ(found.value().end, 3u);
}

}  // namespace
}  // namespace labgate::serial
