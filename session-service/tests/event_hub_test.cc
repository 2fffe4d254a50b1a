#include "session-service/store/event_hub.h"

#include <vector>

#include "gtest/gtest.h"

namespace labgate::session {
namespace {

SessionEventRecord EventFor(const std::string& session_id) {
  SessionEventRecord event;
  event.session.id = session_id;
  return event;
}

TEST(EventHubTest, FiltersBySessionAndEmptyMeansAll) {
  EventHub hub;
  std::vector<std::string> only_a, all;
  hub.Subscribe("a", [&](const SessionEventRecord& e) { only_a.push_back(e.session.id); });
  hub.Subscribe("", [&](const SessionEventRecord& e) { all.push_back(e.session.id); });
  hub.Publish(EventFor("a"));
  hub.Publish(EventFor("b"));
  EXPECT_EQ(only_a, (std::vector<std::string>{"a"}));
  EXPECT_EQ(all, (std::vector<std::string>{"a", "b"}));
}

TEST(EventHubTest, UnsubscribedCallbackIsNotCalled) {
  EventHub hub;
  int calls = 0;
  uint64_t id = hub.Subscribe("", [&](const SessionEventRecord&) { ++calls; });
  hub.Publish(EventFor("a"));
  hub.Unsubscribe(id);
  hub.Publish(EventFor("a"));
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(hub.subscriber_count(), 0u);
}

}  // namespace
}  // namespace labgate::session
