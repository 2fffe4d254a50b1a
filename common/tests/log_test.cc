#include "common/log.h"

#include <gtest/gtest.h>

#include <regex>

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

TEST(LogTest, TextLinesCarryAFullRfc3339TimeAndFields) {
  ::testing::internal::CaptureStderr();
  WriteLogLine(LogLevel::kInfo, "access",
               {{"dialect", "mcp"}, {"tool", "write port"}, {"empty", ""}, {"ms", 1.5}});
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(
      std::regex_match(err, std::regex(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z INFO access )"
                                       R"(dialect=mcp tool="write port" empty="" ms=1\.5\n)")))
      << err;
}

TEST(LogTest, JsonLinesAreOneObjectEach) {
  const std::string line = FormatLogLine(
      LogFormat::kJson, "2026-11-22T01:02:03.004Z", LogLevel::kWarning, "said \"hi\"\n\x01 \xff",
      {{"principal", "alice"}, {"duration_ms", 0.25}, {"code", -32602}});
  EXPECT_EQ(line,
            "{\"time\":\"2026-11-22T01:02:03.004Z\",\"level\":\"warn\",\"message\":"
            "\"said \\\"hi\\\"\\n\\u0001 \\ufffd\",\"principal\":\"alice\",\"duration_ms\":0.25,"
            "\"code\":-32602}\n");
}

TEST(LogTest, ParsesFormats) {
  LogFormat format;
  ASSERT_TRUE(ParseLogFormat("JSON", &format));
  EXPECT_EQ(format, LogFormat::kJson);
  ASSERT_TRUE(ParseLogFormat("text", &format));
  EXPECT_EQ(format, LogFormat::kText);
  EXPECT_FALSE(ParseLogFormat("yaml", &format));
}

}  // namespace
}  // namespace labgate
