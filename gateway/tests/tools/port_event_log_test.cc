#include "gateway/tools/port_event_log.h"

#include <gtest/gtest.h>

#include "labgate/serial/v1/serial.pb.h"

namespace labgate::gateway {
namespace {

using Event = labgate::serial::v1::PortEvent;

TEST(PortEventMapperTest, TheCurrentStateIsNotNews) {
  PortEventMapper mapper;
  EXPECT_FALSE(mapper.Map(Event::TYPE_OPENED, "loop://", "current state").has_value());
  EXPECT_FALSE(mapper.Map(Event::TYPE_DATA, "loop://", "").has_value());
  EXPECT_FALSE(mapper.Map(Event::TYPE_RECONFIGURED, "loop://", "").has_value());
}

TEST(PortEventMapperTest, AnAutoCloseIsLeftToTheReadThatCausedIt) {
  PortEventMapper mapper;
  EXPECT_FALSE(mapper.Map(Event::TYPE_AUTO_CLOSE, "loop://", "idle_timeout").has_value());
}

TEST(PortEventMapperTest, ADeviceLostThenBack) {
  PortEventMapper mapper;
  auto lost = mapper.Map(Event::TYPE_ERROR, "/dev/ttyUSB0", "device disconnected");
  ASSERT_TRUE(lost.has_value());
  EXPECT_EQ(lost->data["event"], "device_lost");
  auto back = mapper.Map(Event::TYPE_OPENED, "/dev/ttyUSB0", "");
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->data["event"], "device_back");
  // A later open is an ordinary one, which the opening call logs itself.
  EXPECT_FALSE(mapper.Map(Event::TYPE_OPENED, "/dev/ttyUSB0", "").has_value());
}

// A follow starts after an open; a device lost before the follow's stream began is news,
// once, and its return too.
TEST(PortEventMapperTest, FollowingADeviceLostSinceTheOpenLogsItAndHearsItComeBack) {
  PortEventMapper mapper;
  auto lost = mapper.Map(Event::TYPE_ERROR, "/dev/ttyUSB0", "current state");
  ASSERT_TRUE(lost.has_value());
  EXPECT_EQ(lost->data, (nlohmann::json{{"event", "device_lost"},
                                        {"port_name", "/dev/ttyUSB0"},
                                        {"reason", "device disconnected"}}));
  EXPECT_FALSE(mapper.Map(Event::TYPE_ERROR, "/dev/ttyUSB0", "current state").has_value());
  auto back = mapper.Map(Event::TYPE_OPENED, "/dev/ttyUSB0", "");
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->data["event"], "device_back");
}

TEST(PortEventMapperTest, ADeviceLostIsLoggedAtInfoWithItsReason) {
  PortEventMapper mapper;
  auto lost = mapper.Map(Event::TYPE_ERROR, "/dev/ttyUSB0", "device disconnected");
  ASSERT_TRUE(lost.has_value());
  EXPECT_EQ(lost->level, McpLogLevel::kInfo);
  EXPECT_EQ(lost->logger, "serial");
  EXPECT_EQ(lost->data, (nlohmann::json{{"event", "device_lost"},
                                        {"port_name", "/dev/ttyUSB0"},
                                        {"reason", "device disconnected"}}));
}

// The port opened again: a new follow's stream starts with the current state, which says
// the device is back, while the old stream's OPENED may come before or after it. Once.
TEST(PortEventMapperTest, AnOpenCurrentStateAfterALossIsTheDeviceBackOnce) {
  PortEventMapper new_stream_first;
  ASSERT_TRUE(new_stream_first.Map(Event::TYPE_ERROR, "/dev/tty3", "device disconnected"));
  EXPECT_FALSE(new_stream_first.Map(Event::TYPE_CLOSED, "/dev/tty3", "replaced by a new open"));
  auto back = new_stream_first.Map(Event::TYPE_OPENED, "/dev/tty3", "current state");
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->data, (nlohmann::json{{"event", "device_back"}, {"port_name", "/dev/tty3"}}));
  EXPECT_FALSE(new_stream_first.Map(Event::TYPE_OPENED, "/dev/tty3", "").has_value());

  PortEventMapper old_stream_first;
  ASSERT_TRUE(old_stream_first.Map(Event::TYPE_ERROR, "/dev/tty3", "device disconnected"));
  ASSERT_TRUE(old_stream_first.Map(Event::TYPE_OPENED, "/dev/tty3", "").has_value());
  EXPECT_FALSE(old_stream_first.Map(Event::TYPE_OPENED, "/dev/tty3", "current state"));
}

}  // namespace
}  // namespace labgate::gateway
