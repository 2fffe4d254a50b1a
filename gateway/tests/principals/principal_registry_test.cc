#include "gateway/principals/principal_registry.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>

#include "gateway/tests/principals/principal_test_util.h"

namespace labgate::gateway {
namespace {

using namespace std::chrono_literals;
using testing::CountedHolding;
using testing::HandClock;

TEST(PrincipalRegistryTest, OneNameIsOnePrincipalWithThePrefixedOwnerId) {
  PrincipalRegistry registry("http:");
  std::shared_ptr<Principal> alice = registry.Get("alice");
  EXPECT_EQ(registry.Get("alice"), alice);
  EXPECT_EQ(alice->owner_id(), "http:alice");
  EXPECT_STREQ(alice->transport(), "http");
  EXPECT_NE(registry.Get("bob"), alice);
  EXPECT_EQ(registry.size(), 2u);
}

TEST(PrincipalRegistryTest, IdleReleaseLetsGoOfWhatOnlyIdlePrincipalsHold) {
  HandClock clock;
  PrincipalRegistry registry("http:", "http", clock.AsFunction());
  std::shared_ptr<Principal> alice = registry.Get("alice");
  std::shared_ptr<Principal> bob = registry.Get("bob");
  std::shared_ptr<Principal> carol = registry.Get("carol");  // holds nothing
  auto alice_released = std::make_shared<std::atomic<int>>(0);
  auto bob_released = std::make_shared<std::atomic<int>>(0);
  alice->Hold("serial", [&] { return CountedHolding(alice_released); });
  bob->Hold("serial", [&] { return CountedHolding(bob_released); });

  clock.Advance(5min);
  bob->Touch();
  clock.Advance(6min);
  // Idle for 10 minutes or more: alice (11), not bob (6); carol has nothing to give up.
  EXPECT_EQ(registry.ReleaseIdle(clock.Now() - 10min), 1u);
  EXPECT_EQ(alice_released->load(), 1);
  EXPECT_EQ(bob_released->load(), 0);
  EXPECT_FALSE(alice->holds_anything());
  EXPECT_TRUE(bob->holds_anything());

  // Released once: a second sweep finds nothing more of alice's.
  EXPECT_EQ(registry.ReleaseIdle(clock.Now() - 10min), 0u);
  clock.Advance(5min);
  EXPECT_EQ(registry.ReleaseIdle(clock.Now() - 10min), 1u);
  EXPECT_EQ(bob_released->load(), 1);

  // A principal that comes back is the same one, and may hold again.
  EXPECT_EQ(registry.Get("alice"), alice);
  EXPECT_EQ(registry.size(), 3u);
}

TEST(PrincipalRegistryTest, APrincipalWithACallUnderWayIsNotIdleAndItsIdleTimeCountsFromTheEnd) {
  HandClock clock;
  PrincipalRegistry registry("http:", "http", clock.AsFunction());
  std::shared_ptr<Principal> dave = registry.Get("dave");
  auto released = std::make_shared<std::atomic<int>>(0);
  dave->Hold("serial", [&] { return CountedHolding(released); });

  std::shared_ptr<void> script = dave->Busy();  // a send_expect that runs 30 minutes
  std::shared_ptr<void> task = dave->Busy();    // and a task beside it
  clock.Advance(30min);
  EXPECT_EQ(registry.ReleaseIdle(clock.Now() - 10min), 0u);
  script.reset();
  EXPECT_EQ(registry.ReleaseIdle(clock.Now() - 10min), 0u) << "the task still runs";
  clock.Advance(5min);
  task.reset();  // the last call ends now: idle from here
  clock.Advance(9min);
  EXPECT_EQ(registry.ReleaseIdle(clock.Now() - 10min), 0u);
  EXPECT_EQ(released->load(), 0);
  clock.Advance(2min);
  EXPECT_EQ(registry.ReleaseIdle(clock.Now() - 10min), 1u);
  EXPECT_EQ(released->load(), 1);
}

}  // namespace
}  // namespace labgate::gateway
