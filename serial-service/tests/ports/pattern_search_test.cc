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

// The match that must be there (a missing one fails the test and reads as index -1).
PatternMatch Found(const std::optional<PatternMatch>& found) {
  EXPECT_TRUE(found.has_value()) << "no match";
  return found.value_or(PatternMatch{});
}

TEST(PatternSearchTest, TheEarliestMatchWinsAndATieGoesToThePatternListedFirst) {
  const std::string text = "boot\nlogin: Password: ";
  const PatternMatch login = Found(FindEarliest(Compile({"Password:", "login:", "log"}), text));
  EXPECT_EQ(login.pattern_index, 1);
  EXPECT_EQ(text.substr(login.begin, login.end - login.begin), "login:");
  EXPECT_EQ(Found(FindEarliest(Compile({"log", "login:"}), text)).pattern_index, 0);
}

TEST(PatternSearchTest, GroupsComeBackInOrderAndAnAbsentOneIsEmpty) {
  const PatternMatch found =
      Found(FindEarliest(Compile({"V=(\\d+)(mV)?(V)?"}), "reading V=12V ok"));
  EXPECT_EQ(found.groups, (std::vector<std::string>{"12", "", "V"}));
}

// A text pattern that is not UTF-8 is refused by name (RE2's reason given); in hex or base64
// mode the same bytes are a byte pattern and match byte for byte.
TEST(PatternSearchTest, ATextPatternThatIsNotUtf8IsRefusedByName) {
  const std::string not_utf8("OK\xff\xfe", 4);
  absl::StatusOr<CompiledPattern> text =
      CompilePattern(not_utf8, PatternInput::kUtf8, "patterns[2]");
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(text.status().message().find("patterns[2]"), std::string::npos) << text.status();
  EXPECT_NE(text.status().message().find("UTF-8"), std::string::npos) << text.status();
  const PatternMatch bytes = Found(
      FindEarliest(Compile({not_utf8}, PatternInput::kBytes), std::string("\x01OK\xff\xfe", 5)));
  EXPECT_EQ(bytes.begin, 1u);
}

TEST(PatternSearchTest, NoMatchIsNothingAndLinesAreOnlySpecialWhenThePatternSaysSo) {
  EXPECT_FALSE(FindEarliest(Compile({"^login"}), "boot\nlogin: ").has_value());
  EXPECT_TRUE(FindEarliest(Compile({"(?m)^login"}), "boot\nlogin: ").has_value());
  EXPECT_FALSE(FindEarliest(Compile({"OK"}), "").has_value());
}

TEST(PatternSearchTest, BytesMatchByteForByte) {
  const std::string data("\x02\x10\xff\x03", 4);
  const PatternMatch found =
      Found(FindEarliest(Compile({"\\x10\\xff"}, PatternInput::kBytes), data));
  EXPECT_EQ(found.begin, 1u);
  EXPECT_EQ(found.end, 3u);
}

}  // namespace
}  // namespace labgate::serial
