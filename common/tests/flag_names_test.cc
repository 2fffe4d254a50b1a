#include "common/flag_names.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace labgate
