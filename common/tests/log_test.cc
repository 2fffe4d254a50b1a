#include "common/log.h"

#include <gtest/gtest.h>

namespace labgate {
namespace {

TEST(LogTest, ParsesLevelsCaseInsensitively) {
  LogLevel level;
  ASSERT_TRUE(ParseLogLevel("DEBUG", &level));
  EXPECT_EQ(level, LogLevel::kDebug);
  ASSERT_TRUE(ParseLogLevel("warn", &level));
  EXPECT_EQ(level, LogLevel::kWarning);
  ASSERT_TRUE(ParseLogLevel("off", &level));
  EXPECT_EQ(level, LogLevel::kOff);
  EXPECT_FALSE(ParseLogLevel("loud", &level));
}

TEST(LogTest, LevelFiltersLines) {
  SetLogLevel(LogLevel::kWarning);
  EXPECT_FALSE(LogEnabled(LogLevel::kInfo));
  EXPECT_TRUE(LogEnabled(LogLevel::kError));
  SetLogLevel(LogLevel::kOff);
  EXPECT_FALSE(LogEnabled(LogLevel::kError));
  SetLogLevel(LogLevel::kInfo);
}

TEST(LogTest, LinesGoToStderrNotStdout) {
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  LG_LOG(kError) << "visible " << 42;
  std::string out = ::testing::internal::GetCapturedStdout();
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(out, "");
  EXPECT_NE(err.find("ERROR visible 42"), std::string::npos);
}

}  // namespace
}  // namespace labgate
