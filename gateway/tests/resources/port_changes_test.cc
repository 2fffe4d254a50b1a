#include "gateway/resources/port_changes.h"

#include <gtest/gtest.h>

namespace labgate::gateway {
namespace {

TEST(PortChangesTest, ListenersHearTheirPortUntilReleased) {
  PortChanges changes;
  int loop = 0, other = 0;
  auto loop_handle = changes.Listen("loop://", [&] { ++loop; });
  auto other_handle = changes.Listen("/dev/ttyUSB0", [&] { ++other; });
  changes.Touch("loop://");
  changes.Touch("loop://");
  EXPECT_EQ(loop, 2);
  EXPECT_EQ(other, 0);
  loop_handle.reset();
  changes.Touch("loop://");
  EXPECT_EQ(loop, 2);
  changes.Touch("/dev/ttyUSB0");
  EXPECT_EQ(other, 1);
}

}  // namespace
}  // namespace labgate::gateway
