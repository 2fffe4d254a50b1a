// What the conformance fixtures share with their timers. Internal to this module.
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <cstdint>
#include <functional>
#include <map>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "gateway/conformance/conformance_fixtures.h"

namespace labgate::gateway {

struct ConformanceFixtures::State {
  explicit State(boost::asio::io_context& io)
      : strand(boost::asio::make_strand(io)), dynamic_timer(strand), watch_timer(strand) {}

  // Both timers are only touched from handlers on `strand` (and from Start, before
  // they are armed), so they need no lock.
  boost::asio::strand<boost::asio::io_context::executor_type> strand;
  boost::asio::steady_timer dynamic_timer;
  boost::asio::steady_timer watch_timer;

  std::function<void(ListKind)> list_changed;
  std::atomic<bool> stopped{false};
  std::atomic<bool> dynamic_ready{false};
  std::atomic<int> watched_revision{0};

  absl::Mutex mutex;
  uint64_t next_watcher ABSL_GUARDED_BY(mutex) = 1;
  // Subscribers of test://watched-resource, by subscription id.
  std::map<uint64_t, std::function<void()>> watchers ABSL_GUARDED_BY(mutex);
};

}  // namespace labgate::gateway
