#include "common/flag_names.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace labgate {
namespace {

TEST(HyphenatedFlagsTest, RewritesNamesButNotValues) {
  const char* raw[] = {"labgate",  "--data-dir=/tmp/a-b", "--session-addr",
                       "host-1:5", "-log-level",          "info",
                       "--",       "--not-a-flag"};
  HyphenatedFlags flags(8, const_cast<char**>(raw));
  ASSERT_EQ(flags.argc(), 8);
  EXPECT_STREQ(flags.argv()[0], "labgate");
  EXPECT_STREQ(flags.argv()[1], "--data_dir=/tmp/a-b");
  EXPECT_STREQ(flags.argv()[2], "--session_addr");
  EXPECT_STREQ(flags.argv()[3], "host-1:5");
  EXPECT_STREQ(flags.argv()[4], "-log_level");
  EXPECT_STREQ(flags.argv()[7], "--not-a-flag");
  EXPECT_EQ(flags.argv()[8], nullptr);
}

TEST(FlagNamesTest, TranslatesBetweenSpellings) {
  EXPECT_EQ(UnderscoredFlagName("serial-addr"), "serial_addr");
  EXPECT_EQ(HyphenatedFlagName("http_max_body_bytes"), "http-max-body-bytes");
  EXPECT_EQ(UnderscoredFlagName("stdio"), "stdio");
}

TEST(FlagValuesTest, CollectsEveryValueOfARepeatedFlagInEitherSpelling) {
  const char* raw[] = {"labgate",      "--serial-addr", "a=h:1",          "--serial_addr=b=h:2",
                       "-serial-addr", "h:3",           "--session-addr", "s:4"};
  EXPECT_EQ(FlagValues(8, const_cast<char**>(raw), "serial-addr"),
            (std::vector<std::string>{"a=h:1", "b=h:2", "h:3"}));
  EXPECT_EQ(FlagValues(8, const_cast<char**>(raw), "session_addr"),
            (std::vector<std::string>{"s:4"}));
  EXPECT_TRUE(FlagValues(8, const_cast<char**>(raw), "serial").empty());
}

TEST(FlagValuesTest, StopsAtTheTerminator) {
  const char* raw[] = {"labgate", "--", "--serial-addr", "h:1"};
  EXPECT_TRUE(FlagValues(4, const_cast<char**>(raw), "serial-addr").empty());
}

TEST(FlagNamedTest, SeesTheFlagWithOrWithoutAValueButNotAPrefixOrAValue) {
  const char* with_value[] = {"labgate", "--http", ":0", "-stdio=false"};
  EXPECT_TRUE(FlagNamed(4, const_cast<char**>(with_value), "stdio"));
  const char* bare[] = {"labgate", "--stdio"};
  EXPECT_TRUE(FlagNamed(2, const_cast<char**>(bare), "stdio"));
  const char* other[] = {"labgate", "--stdio-mode", "x", "stdio", "--", "--stdio"};
  EXPECT_FALSE(FlagNamed(6, const_cast<char**>(other), "stdio"));
}

}  // namespace
}  // namespace labgate
