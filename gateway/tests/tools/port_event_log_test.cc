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

TEST(PortEventMapperTest, AutoCloseIsLoggedAtInfo) {
  PortEventMapper mapper;
  auto log = mapper.Map(Event::TYPE_AUTO_CLOSE, "loop://", "idle_timeout");
  ASSERT_TRUE(log.has_value());
  EXPECT_EQ(log->level, McpLogLevel::kInfo);
  EXPECT_EQ(log->logger, "serial");
  EXPECT_EQ(log->data, (nlohmann::json{{"event", "port_auto_closed"},
                                       {"port_name", "loop://"},
                                       {"reason", "idle_timeout"}}));
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

TEST(PortEventMapperTest, FollowingALostDeviceHearsItComeBack) {
  PortEventMapper mapper;
  EXPECT_FALSE(mapper.Map(Event::TYPE_ERROR, "/dev/ttyUSB0", "current state").has_value());
  auto back = mapper.Map(Event::TYPE_OPENED, "/dev/ttyUSB0", "");
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->data["event"], "device_back");
}

}  // namespace
}  // namespace labgate::gateway
