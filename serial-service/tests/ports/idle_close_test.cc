// When a read finds a port idle enough to close, and what the close reports.
#include "serial-service/ports/idle_close.h"

#include <gtest/gtest.h>

namespace labgate::serial {
namespace {

TEST(IdleCloseTest, ZeroNeverCloses) {
  EXPECT_FALSE(IdleClose::Due(0, /*last_activity_ms=*/0, /*now_ms=*/86'400'000).has_value());
}

TEST(IdleCloseTest, ClosesOnceTheIdleTimeReachesTheSetting) {
  EXPECT_FALSE(IdleClose::Due(1000, 5000, 5999).has_value());
  std::optional<IdleClose> at_limit = IdleClose::Due(1000, 5000, 6000);
  ASSERT_TRUE(at_limit.has_value());
  EXPECT_EQ(at_limit->idle_disconnect_ms, 1000);
  EXPECT_EQ(at_limit->idle_for_ms, 1000);
  std::optional<IdleClose> past = IdleClose::Due(1000, 5000, 7500);
  ASSERT_TRUE(past.has_value());
  EXPECT_EQ(past->idle_for_ms, 2500);
}

TEST(IdleCloseTest, TheEventNamesThePortTheSettingAndTheCount) {
  const PortEventRecord event = IdleClose{1000, 2500}.Event("loop://a", 3);
  EXPECT_EQ(event.type, PortEventRecord::Type::kAutoClose);
  EXPECT_EQ(event.port_name, "loop://a");
  EXPECT_EQ(event.reason, "idle_timeout");
  EXPECT_EQ(event.idle_ms, 1000);
  EXPECT_EQ(event.idle_close_count, 3);
  EXPECT_TRUE(event.data.empty());
}

TEST(IdleCloseTest, TheTranscriptLineSaysHowLongAndWhy) {
  const IdleClose close{1000, 2500};
  EXPECT_EQ(close.TranscriptLine(), "auto_close: idle for 2500 ms (idle_disconnect_ms 1000)");
}

}  // namespace
}  // namespace labgate::serial
