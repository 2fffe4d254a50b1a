#include "common/time_format.h"

#include <gtest/gtest.h>

#include <regex>

namespace labgate {
namespace {

TEST(TimeFormatTest, FormatsRfc3339UtcWithMillis) {
  std::chrono::system_clock::time_point epoch_plus{std::chrono::milliseconds(1700000000123LL)};
  EXPECT_EQ(FormatRfc3339(epoch_plus), "2023-11-14T22:13:20.123Z");
  EXPECT_EQ(FormatRfc3339(std::chrono::system_clock::time_point{}), "1970-01-01T00:00:00.000Z");
}

TEST(TimeFormatTest, TruncatesToMillisecondsAndHandlesTimesBeforeTheEpoch) {
  std::chrono::system_clock::time_point almost{std::chrono::microseconds(1700000000123999LL)};
  EXPECT_EQ(FormatRfc3339(almost), "2023-11-14T22:13:20.123Z");
  std::chrono::system_clock::time_point before{std::chrono::milliseconds(-1)};
  EXPECT_EQ(FormatRfc3339(before), "1969-12-31T23:59:59.999Z");
  std::chrono::system_clock::time_point leap_day{std::chrono::seconds(951782400)};
  EXPECT_EQ(FormatRfc3339(leap_day), "2000-02-29T00:00:00.000Z");
}

TEST(TimeFormatTest, NowHasTheShape) {
  EXPECT_TRUE(
      std::regex_match(NowRfc3339(), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)")));
}

}  // namespace
}  // namespace labgate
