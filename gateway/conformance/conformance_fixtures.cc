// Construction, the dynamic-fixture and watched-resource timers, and the factory.
#include "gateway/conformance/conformance_fixtures.h"

#include <boost/asio/post.hpp>
#include <utility>

#include "gateway/conformance/fixture_state.h"
#include "gateway/conformance/fixture_tasks.h"

namespace labgate::gateway {

namespace {

using State = ConformanceFixtures::State;

void ArmWatchTimer(const std::shared_ptr<State>& state, std::chrono::milliseconds interval) {
  state->watch_timer.expires_after(interval);
  state->watch_timer.async_wait(
      [weak = std::weak_ptr<State>(state), interval](boost::system::error_code ec) {
        auto state = weak.lock();
        if (ec || !state || state->stopped.load()) return;
        state->watched_revision.fetch_add(1);
        std::vector<std::function<void()>> watchers;
        {
          absl::MutexLock lock(&state->mutex);
          for (const auto& [id, updated] : state->watchers) {
            (void)id;
            watchers.push_back(updated);
          }
        }
        for (const auto& updated : watchers) updated();
        ArmWatchTimer(state, interval);
      });
}

}  // namespace

ConformanceFixtures::ConformanceFixtures(boost::asio::io_context& io, FixtureTimings timings,
                                         std::function<void(ListKind)> list_changed)
    : io_(io), timings_(timings), state_(std::make_shared<State>(io)) {
  state_->list_changed = std::move(list_changed);
}

ConformanceFixtures::~ConformanceFixtures() {
  // Pending timer handlers hold only a weak_ptr; a running one finishes without re-arming.
  state_->stopped.store(true);
}

void ConformanceFixtures::Start() {
  // Armed on the strand, like every later touch of the timers.
  boost::asio::post(state_->strand, [state = state_, timings = timings_]() {
    state->dynamic_timer.expires_after(timings.dynamic_delay);
    state->dynamic_timer.async_wait(
        [weak = std::weak_ptr<State>(state)](boost::system::error_code ec) {
          auto state = weak.lock();
          if (ec || !state || state->stopped.load()) return;
          state->dynamic_ready.store(true);
          if (state->list_changed) {
            state->list_changed(ListKind::kTools);
            state->list_changed(ListKind::kResources);
            state->list_changed(ListKind::kPrompts);
          }
        });
    ArmWatchTimer(state, timings.watch_interval);
  });
}

bool ConformanceFixtures::dynamic_ready() const { return state_->dynamic_ready.load(); }

int ConformanceFixtures::watched_revision() const { return state_->watched_revision.load(); }

std::unique_ptr<ConformanceFixtures> CreateConformanceFixtures(McpServer* server,
                                                               boost::asio::io_context& io,
                                                               FixtureTimings timings) {
  auto fixtures = std::make_unique<ConformanceFixtures>(
      io, timings, [server](ListKind kind) { server->NotifyListChanged(kind); });
  server->tools.push_back(fixtures.get());
  fixtures->task_tools_ = std::make_unique<TaskFixtures>(io);
  server->tools.push_back(fixtures->task_tools_.get());
  server->resources.push_back(fixtures.get());
  server->prompts.push_back(fixtures.get());
  fixtures->Start();
  return fixtures;
}

}  // namespace labgate::gateway
