#include "gateway/principals/principal.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>

#include "gateway/tests/principals/principal_test_util.h"

namespace labgate::gateway {
namespace {

using std::chrono_literals::operator""min;
using testing::CountedHolding;
using testing::HandClock;

TEST(PrincipalTest, NamesItsOwnerAndTransport) {
  Principal principal("alice", "http:alice", "http");
  EXPECT_EQ(principal.name(), "alice");
  EXPECT_EQ(principal.owner_id(), "http:alice");
  EXPECT_STREQ(principal.transport(), "http");
  EXPECT_FALSE(principal.holds_anything());
}

TEST(PrincipalTest, HoldMakesOncePerKeyAndReleaseLetsGoOfEverything) {
  Principal principal("stdio", "stdio-1");
  auto released = std::make_shared<std::atomic<int>>(0);
  int made = 0;
  auto make = [&] {
    ++made;
    return CountedHolding(released);
  };
  principal.Hold("serial", make);
  principal.Hold("serial", make);
  EXPECT_EQ(made, 1) << "a second Hold of the same key keeps the first";
  principal.Hold("other", make);
  EXPECT_EQ(made, 2);
  EXPECT_TRUE(principal.holds_anything());

  principal.Release();
  EXPECT_EQ(released->load(), 2);
  EXPECT_FALSE(principal.holds_anything());
  principal.Release();  // nothing left: harmless
  EXPECT_EQ(released->load(), 2);

  principal.Hold("serial", make);  // a released key can be held again
  EXPECT_EQ(made, 3);
}

TEST(PrincipalTest, ActivityIsReadFromTheGivenClock) {
  HandClock clock;
  Principal principal("alice", "http:alice", "http", clock.AsFunction());
  const auto created = clock.Now();
  EXPECT_EQ(principal.last_active(), created) << "creation counts as activity";
  clock.Advance(5min);
  EXPECT_EQ(principal.last_active(), created);
  principal.Touch();
  EXPECT_EQ(principal.last_active(), created + 5min);
}

}  // namespace
}  // namespace labgate::gateway
